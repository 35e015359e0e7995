import type { Logger } from 'pino';
import { EmbeddedLlm } from '../../adapters/llm/embedded-llm.adapter.js';
import { OpenAiCompatibleLlm } from '../../adapters/llm/openai-compatible.adapter.js';
import { AskBot } from '../../agents/chat/ask-bot.js';
import type { StatusReader } from '../../agents/portfolio/portfolio.types.js';
import { StoreStatusReader } from '../../agents/portfolio/status-reader.js';
import type { AgentsService } from '../accounts/agents.service.js';
import type { ApiKeysService } from '../accounts/api-keys.service.js';
import type { BotsService } from '../accounts/bots.service.js';
import type { AuthMiddlewareDeps } from '../http/auth/auth.middleware.js';
import { ACCOUNT_REST_BINDINGS, CATALOG_ADMIN_BINDINGS } from '../http/routes/account.bindings.js';
import { createOpenApiRoutes } from '../http/openapi/openapi.routes.js';
import { AGENT_REST_BINDINGS, createOperationRoutes } from '../http/routes/operation.routes.js';
import { AuditLog } from '../operations/audit-log.js';
import { StoredCatalogSettings } from '../operations/catalog-settings.store.js';
import { accountAccess } from '../operations/account-access.js';
import { agentAdminOperations } from '../operations/definitions/agent-admin.ops.js';
import { agentOperations } from '../operations/definitions/agent.ops.js';
import { auditLogOperations } from '../operations/definitions/audit-log.ops.js';
import { botOperations } from '../operations/definitions/bot.ops.js';
import { catalogAdminOperations } from '../operations/definitions/service-admin.ops.js';
import { stepUpOperations, type StepUpIssuer } from '../operations/definitions/step-up.ops.js';
import { chatOperations } from '../operations/definitions/chat.ops.js';
import { portfolioOperations } from '../operations/definitions/portfolio.ops.js';
import { keyOperations } from '../operations/definitions/key.ops.js';
import { SecretBox } from '../crypto/secret-box.js';
import { OperationCatalog } from '../operations/operation-catalog.js';
import { OperationInvoker } from '../operations/operation-invoker.js';
import { IdempotencyGuard } from '../operations/idempotency-guard.js';
import type { AnyOperation } from '../operations/operation.types.js';
import type { KeyedHash } from '../operations/request-digest.js';
import type { RestBinding } from '../http/routes/operation.routes.js';
import type { ClockPort } from '../ports/clock.port.js';
import type { StorePort } from '../ports/store.port.js';
import type { BreakerReadout } from '../ports/venue.port.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import { statusActors } from './status-actors.js';
import type { AppConfig } from '../config/config.schema.js';

export interface OperationsDeps {
  runtime: ActorRuntime;
  store: StorePort;
  clock: ClockPort;
  logger: Logger;
  auth: AuthMiddlewareDeps;
  agents: AgentsService;
  keys: ApiKeysService;
  bots: BotsService;
  stepUp: StepUpIssuer;
  opsToken: string;
  /** The trading core's reader (positions valued at current prices); absent: a reader without prices. */
  status?: StatusReader;
  /** Operations and REST bindings of other modules (the trading core). */
  extraOperations?: AnyOperation[];
  extraBindings?: RestBinding[];
  /** `config.llm`: an OpenAI-compatible LLM phrases ask_bot replies; absent = the embedded templated one. */
  llm?: AppConfig['llm'];
  /** Keyed hash of guarded requests' idempotency fingerprints (HMAC under a server key); plain SHA-256 when absent. */
  fingerprintHash?: KeyedHash;
}

/** The operations catalog, the invoker every surface calls, the audit trail, and the REST bindings. */
export function buildOperations(deps: OperationsDeps) {
  const status = deps.status ?? new StoreStatusReader({ actors: statusActors(deps.runtime), store: deps.store, clock: deps.clock });
  const llm = deps.llm ? new OpenAiCompatibleLlm(deps.llm) : new EmbeddedLlm();
  const askBot = new AskBot({ llm, status, clock: deps.clock, onLlmError: (err) => deps.logger.warn({ err, llm: llm.name }, 'ask_bot reply degraded: LLM failed') });
  const audit = new AuditLog(deps.store, deps.clock, deps.logger);
  const catalog = new OperationCatalog().register(
    ...agentOperations(deps.runtime.collection(agentDefinition)),
    ...agentAdminOperations(deps.agents),
    ...botOperations(deps.bots, deps.keys),
    ...stepUpOperations(deps.stepUp),
    ...auditLogOperations(audit),
    ...keyOperations(deps.keys),
    ...chatOperations(askBot),
    ...portfolioOperations(status),
    ...(deps.extraOperations ?? []),
  );
  const catalogSettings = new StoredCatalogSettings({ store: deps.store, catalog, clock: deps.clock, logger: deps.logger });
  catalog.register(...catalogAdminOperations(catalog, catalogSettings));
  const invoker = new OperationInvoker(catalog, audit, deps.clock, {
    idempotency: new IdempotencyGuard(deps.store, deps.clock),
    settled: () => deps.runtime.settled(),
    ...(deps.fingerprintHash ? { fingerprintHash: deps.fingerprintHash } : {}),
  });
  const bindings = [...AGENT_REST_BINDINGS, ...ACCOUNT_REST_BINDINGS, ...CATALOG_ADMIN_BINDINGS, ...(deps.extraBindings ?? [])];
  const routers = [
    createOperationRoutes({ auth: deps.auth, invoker, accounts: accountAccess(deps.agents, deps.bots), bindings, opsToken: deps.opsToken }),
    createOpenApiRoutes({ catalog, bindings, publicLimit: deps.auth.publicLimit }),
  ];
  return { catalog, catalogSettings, audit, invoker, routers, llmBreakers: () => llmBreakers(llm) };
}

/** The LLM provider's circuit breaker for `/metrics`; the embedded LLM has none. */
function llmBreakers(llm: OpenAiCompatibleLlm | EmbeddedLlm): BreakerReadout[] {
  if (!(llm instanceof OpenAiCompatibleLlm)) return [];
  const state = llm.circuitState;
  // `isolated` (held open by hand) refuses calls as `open` does.
  return [{ provider: llm.name, state: state === 'closed' ? 'closed' : state === 'half-open' ? 'half_open' : 'open' }];
}

/**
 * HMAC-SHA256 of idempotency fingerprints under a key of their own derived from the master
 * key: a stored fingerprint covers every field of a request, and without the key nobody can
 * test guesses of a short value in it (a code, an amount) against it.
 */
export function idempotencyFingerprints(masterKey: string): KeyedHash {
  const box = new SecretBox(masterKey, 'idempotency-fingerprint');
  return (text) => box.keyedHash(text);
}
