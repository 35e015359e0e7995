import { EmbeddedLlm } from '../../adapters/llm/embedded-llm.adapter.js';
import { OpenAiCompatibleLlm } from '../../adapters/llm/openai-compatible.adapter.js';
import { AskBot } from '../../agents/chat/ask-bot.js';
import type { StatusReader } from '../../agents/portfolio/portfolio.types.js';
import { chatOperations } from '../operations/definitions/chat.ops.js';
import type { BreakerReadout } from '../../kernel/ports/venue.port.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

/**
 * `ask_bot`: answers from stored status, phrased by the configured LLM (`config.llm`, an
 * OpenAI-compatible one) or the embedded templated one. `status` is the trading module's
 * reader (positions valued at the venue's prices). `askBot` is shared with the legacy bots' chat.
 */
export function chatModule(ctx: ModuleContext, needs: { status: StatusReader }): FeatureModule & { askBot: AskBot } {
  const llm = ctx.config.llm ? new OpenAiCompatibleLlm({ ...ctx.config.llm, breaker: { logger: ctx.logger } }) : new EmbeddedLlm();
  const onLlmError = (err: unknown) => ctx.logger.warn({ err, llm: llm.name }, 'ask_bot reply degraded: LLM failed');
  const askBot = new AskBot({ llm, status: needs.status, clock: ctx.clock, onLlmError });
  ctx.metrics.trading.addBreakerSource(() => llmBreakers(llm));
  return {
    name: 'chat',
    definitions: [],
    collections: [],
    operations: chatOperations(askBot),
    bindings: [],
    routers: [],
    dueJobs: [],
    askBot,
  };
}

/** The LLM provider's circuit breaker for `/metrics`; the embedded LLM has none. */
function llmBreakers(llm: OpenAiCompatibleLlm | EmbeddedLlm): BreakerReadout[] {
  if (!(llm instanceof OpenAiCompatibleLlm)) return [];
  const state = llm.circuitState;
  // `isolated` (held open by hand) refuses calls as `open` does.
  return [{ provider: llm.name, state: state === 'closed' ? 'closed' : state === 'half-open' ? 'half_open' : 'open' }];
}
