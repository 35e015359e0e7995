import type { Logger } from 'pino';
import { isAppError } from '../../kernel/errors/app-error.js';
import type { OperationCatalog, Viewer } from '../operations/operation-catalog.js';
import type { OperationInvoker } from '../operations/operation-invoker.js';
import type { DueJob } from '../../kernel/ports/scheduler.port.js';
import type { DueJobRoute } from './feature-module.types.js';

/** The service itself: sees the `system` operations and nothing switched off stops it. */
const SYSTEM: Viewer = { kind: 'system', scope: 'manage' };

/**
 * Where due jobs go: each scheduled (actor type, event) is taken by one `system`
 * operation, called through the invoker like any surface's call. So a due job is audited
 * (principal `system`, id the job's id, surface `system`), and it is done (the scheduler
 * forgets it) only once what it changed is durable: the invoker waits for the flush before
 * it answers, and power loss must not undo a transition whose job is gone (a key's expiry is
 * not scheduled again).
 *
 * There is no generic path: every event the service schedules (`key.expire`, `order.expire`,
 * `dca.tick`, `dca.end`) has its operation, and a job nothing routes is dropped with an
 * error in the log (a machine type of its own, in tests, schedules nothing).
 */
export class DueJobs {
  private readonly routes = new Map<string, DueJobRoute<string>>();

  constructor(
    routes: readonly DueJobRoute<string>[],
    private readonly invoker: Pick<OperationInvoker, 'invoke'>,
    private readonly logger: Logger,
  ) {
    for (const route of routes) {
      const key = routeKey(route.type, route.event);
      if (this.routes.has(key)) throw new Error(`Due job ${route.type} ${route.event} routed twice`);
      this.routes.set(key, route);
    }
  }

  /**
   * Refuses routes whose operation the service cannot run as `system`: a renamed operation
   * must fail the start, not answer every due job "Tool not found" (dropped like a missing actor).
   */
  check(catalog: Pick<OperationCatalog, 'refusal'>): void {
    for (const route of this.routes.values()) {
      const refusal = catalog.refusal(route.operation, SYSTEM);
      if (refusal)
        throw new Error(`Due job ${route.type} ${route.event} names ${route.operation}, which the system cannot call (${refusal})`);
    }
  }

  /** The scheduler's handler. Throws (the job is retried) unless its work is durable or it can never succeed. */
  deliver = async (job: DueJob): Promise<void> => {
    const route = this.routes.get(routeKey(job.address.type, job.event.type));
    if (!route) {
      this.logger.error({ job: job.id, address: job.address, event: job.event.type }, 'due job no operation takes dropped');
      return;
    }
    const requestId = `${job.id}@${job.dueAt}`;
    try {
      await this.invoker.invoke({
        name: route.operation,
        input: route.input(job),
        ctx: { principal: { type: 'system', job: job.id }, scope: 'manage', surface: 'system', requestId, correlationId: requestId },
        viewer: SYSTEM,
      });
    } catch (error) {
      // An actor that no longer exists will never take the event: drop it instead of retrying forever.
      if (isAppError(error) && error.kind === 'not_found') {
        this.logger.warn({ job: job.id, address: job.address }, 'due job for a missing actor dropped');
        return;
      }
      throw error;
    }
  };
}

const routeKey = (type: string, event: string) => `${type} ${event}`;
