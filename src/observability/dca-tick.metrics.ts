/**
 * DCA figures of `/metrics`: every due tick by what became of it, and how late it ran.
 * The strategies service reports through `DcaTickObserver`, so `agents/` knows no metrics.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import type { DcaTickObserver, DcaTickOutcome } from '../../kernel/ports/dca-tick-observer.port.js';

const OUTCOMES: readonly DcaTickOutcome[] = ['executed', 'skipped', 'failed'];
// Ticks are due on a schedule; a healthy one runs within a second, a backlog or a restart shows as minutes.
const LAG_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15, 30, 60, 300, 900, 3600];

export class DcaTickMetrics implements DcaTickObserver {
  private readonly ticks: Readonly<Record<DcaTickOutcome, Counter.Internal>>;
  private readonly lag: Histogram;

  constructor(registry: Registry, prefix = '') {
    const registers = [registry];
    const ticks = new Counter({
      name: `${prefix}dca_ticks_total`,
      help: 'Due DCA ticks by outcome: executed (a buy was placed), skipped (agent paused, trading off), failed',
      labelNames: ['outcome'],
      registers,
    });
    // Each outcome shows from the start (at 0), so a rate over `failed` exists before the first failure.
    for (const outcome of OUTCOMES) ticks.inc({ outcome }, 0);
    this.ticks = Object.fromEntries(OUTCOMES.map((outcome) => [outcome, ticks.labels({ outcome })])) as Record<
      DcaTickOutcome,
      Counter.Internal
    >;
    this.lag = new Histogram({
      name: `${prefix}dca_tick_lag_seconds`,
      help: 'How late a due DCA tick ran: from its due time to its handling',
      buckets: LAG_BUCKETS,
      registers,
    });
  }

  observeTick(outcome: DcaTickOutcome, lagSeconds: number): void {
    this.ticks[outcome].inc();
    // A clock a little behind the scheduler's can make a tick look early: that is no lag.
    if (Number.isFinite(lagSeconds)) this.lag.observe(Math.max(0, lagSeconds));
  }
}
