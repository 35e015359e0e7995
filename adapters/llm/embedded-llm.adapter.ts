import { readLlmFacts, type LlmCompletion, type LlmPort, type LlmRequest } from '../../kernel/ports/llm.port.js';

/** Said when a prompt carries no facts block: the honest answer of a model that is not there. */
export const EMBEDDED_NO_FACTS_REPLY =
  'No language model is configured, so I can only answer commands such as "status", "portfolio" or "help".';

/**
 * The LLM of the embedded profile (no `LLM_BASE_URL`): deterministic, no network. It does
 * not pretend to understand free text. It answers with the templated draft that the caller
 * put in the prompt's facts block (see `renderLlmFacts`), which the caller built from the
 * command interpreter's structured result and real data.
 */
export class EmbeddedLlm implements LlmPort {
  readonly name = 'embedded';

  async complete(request: LlmRequest): Promise<LlmCompletion> {
    if (request.signal?.aborted) throw request.signal.reason;
    const facts = readLlmFacts(request.system);
    const text = facts?.draft.trim() || EMBEDDED_NO_FACTS_REPLY;
    return { text };
  }

  async ping(): Promise<void> {}
}
