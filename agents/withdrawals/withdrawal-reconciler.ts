import type { Logger } from 'pino';
import type { WithdrawalContext } from '../../machines/withdrawal.machine.js';
import type { ActorCollection } from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { WithdrawalService } from './withdrawal.service.js';

/** A `requested` withdrawal this old lost its call (a crash, a node down): its request is not still signing it. */
const STUCK_REQUESTED_MS = 60_000;
const PAGE = 200;

/**
 * Finishes withdrawals left in flight, at start and by the periodic sweep: signed and
 * broadcast ones are looked up on chain (and their same bytes sent again while they can
 * still land); requested ones were never sent and are sent now, if still allowed. Never
 * signs a second transaction for a withdrawal that has one (WithdrawalService).
 */
export class WithdrawalReconciler {
  constructor(
    private readonly deps: {
      service: Pick<WithdrawalService, 'reconcile'>;
      withdrawals: Pick<ActorCollection<WithdrawalContext>, 'find'>;
      clock: ClockPort;
      logger: Pick<Logger, 'warn'>;
    },
  ) {}

  /** `stuckOnly`: leave young `requested` ones to the call that is sending them (the sweep); at start none is running. */
  async run(options: { stuckOnly: boolean }): Promise<void> {
    const stuckBefore = this.deps.clock.now() - STUCK_REQUESTED_MS;
    for (const state of ['signed', 'broadcast', 'requested'] as const) {
      await this.each(state, async (withdrawal) => {
        if (state === 'requested' && options.stuckOnly && withdrawal.updatedAt >= stuckBefore) return;
        await this.deps.service
          .reconcile(withdrawal)
          .catch((error: unknown) =>
            this.deps.logger.warn({ err: error, withdrawal: withdrawal.withdrawalId }, 'withdrawal reconciliation failed; retried later'),
          );
      });
    }
  }

  private async each(state: string, visit: (withdrawal: WithdrawalContext) => Promise<void>): Promise<void> {
    let cursor: string | undefined;
    do {
      const page = await this.deps.withdrawals.find({ index: 'state', eq: state }, { limit: PAGE, ...(cursor ? { cursor } : {}) });
      for (const view of page.items) await visit(view.context);
      cursor = page.nextCursor;
    } while (cursor);
  }
}
