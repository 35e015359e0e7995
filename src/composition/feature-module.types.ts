import type { Router } from 'express';
import type { Logger } from 'pino';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';
import type { AppConfig } from '../config/config.schema.js';
import type { Secrets } from '../config/secrets.js';
import type { RestBinding } from '../http/routes/operation.routes.js';
import type { OperationName } from '../operations/operation-names.js';
import type { Metrics } from '../observability/metrics.js';
import type { AuditLog } from '../operations/audit-log.js';
import type { OperationCatalog } from '../operations/operation-catalog.js';
import type { AnyOperation } from '../operations/operation.types.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { DueJob } from '../../kernel/ports/scheduler.port.js';
import type { CollectionSpec } from '../../kernel/ports/store.port.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';
import type { DurablePublisher } from '../runtime/durable-publisher.js';
import type { Adapters } from './adapters.composition.js';

/**
 * One feature of the service, as the composition root assembles it. The root
 * registers every module's machine types, inits every module's collections, registers their
 * operations in the one catalog, mounts their bindings and routers, routes their due jobs,
 * runs their recovery with the runtime's, starts them in list order and stops them in
 * reverse. Adding a feature is its module file plus one line in the list
 * (service.composition.ts, `modules`).
 */
export interface FeatureModule {
  /** Names the module in logs and in a start failure. */
  name: string;
  /** Machine types of its actors (the runtime keeps their collections). */
  definitions: MachineDefinition[];
  /** Store collections of its records. */
  collections: CollectionSpec[];
  /** Its capabilities, each one catalog operation. */
  operations: AnyOperation[];
  /** REST routes of its operations (an operation may be bound by another module's binding, e.g. the audit log). */
  bindings: RestBinding[];
  /** Routers outside the catalog (sign-in only): paths absolute, mounted before the operation routes. */
  routers: Router[];
  /** The scheduled events it takes, each through one of its `system` operations. */
  dueJobs: DueJobRoute[];
  /**
   * Finishes what a crash left half done (orders in flight, pending deposits). Runs inside
   * `runtime.start()`, after the store is open and before any module starts or any request
   * or due job is taken.
   */
  recover?(): Promise<void>;
  /** Starts its timers and subscriptions; runs after every recovery, before the scheduler and the server. */
  start?(): Promise<void>;
  /**
   * Stops what `start` started. Runs after the server and the scheduler stopped taking work
   * and before the runtime drains: it must not end anything an in-flight call still needs.
   */
  stop?(): Promise<void>;
}

/**
 * A scheduled event and the `system` operation that takes it when due: jobs addressed to
 * actors of `type` whose event is `event` call `operation` with `input(job)`.
 */
export interface DueJobRoute<N extends string = OperationName> {
  /** The actor type jobs are addressed to (`ActorAddress.type`). */
  type: string;
  /** The scheduled event's type. */
  event: string;
  /** A name the catalog defines (`OperationName`, checked by the compiler); `DueJobs.check` also refuses one not registered. */
  operation: N;
  input(job: DueJob): Record<string, unknown>;
}

/** What every module is built from: the adapters, the runtime, and the catalog's shared pieces. */
export interface ModuleContext extends Adapters {
  config: AppConfig;
  secrets: Secrets;
  logger: Logger;
  clock: ClockPort;
  metrics: Metrics;
  runtime: ActorRuntime;
  /** Events of records (not actors) go out through it, once durable. */
  publisher: DurablePublisher;
  /** The one catalog (operations that describe it, such as the catalog admin, read it at call time). */
  catalog: OperationCatalog;
  /** The audit trail the invoker writes. */
  audit: AuditLog;
}
