import type { Logger } from 'pino';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';
import type { AgentsService } from '../accounts/agents.service.js';
import type { AppConfig } from '../config/config.schema.js';
import type { Secrets } from '../config/secrets.js';
import { SecretBox } from '../crypto/secret-box.js';
import type { RestBinding } from '../http/routes/operation.routes.js';
import type { AnyOperation } from '../operations/operation.types.js';
import type { ClockPort } from '../ports/clock.port.js';
import type { EventBusPort } from '../ports/event-bus.port.js';
import type { SchedulerPort } from '../ports/scheduler.port.js';
import type { CollectionSpec, StorePort } from '../ports/store.port.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';

export interface TradingCompositionDeps {
  runtime: ActorRuntime;
  store: StorePort;
  clock: ClockPort;
  logger: Logger;
  bus: EventBusPort;
  scheduler: SchedulerPort;
  agents: AgentsService;
  config: AppConfig;
  secrets: Secrets;
}

/** What the trading core adds to the service: catalog operations, their REST routes, stores and machines. */
export interface TradingModule {
  operations: AnyOperation[];
  bindings: RestBinding[];
  collections: CollectionSpec[];
  definitions: MachineDefinition[];
  /** Runs after the runtime started (e.g. reconciliation of orders left in flight). */
  start(): Promise<void>;
}

/**
 * The trading core (issue 5): venue, trading configuration, wallets, orders and the
 * safety path. Each section builds one part; only this file knows the adapters chosen.
 */
export function buildTrading(deps: TradingCompositionDeps): TradingModule {
  const module: TradingModule = { operations: [], bindings: [], collections: [], definitions: [], start: async () => undefined };
  const box = (purpose: string) => new SecretBox(deps.secrets.DATA_ENCRYPTION_KEY, purpose);
  void box;

  // --- venue: the paper venue by default, live adapters when configured ---

  // --- trading configuration and kill switch ---

  // --- wallets ---

  // --- orders and the safety path ---

  return module;
}
