/** What became of one due DCA tick: a buy was placed, the tick was skipped (agent paused, trading off), or it failed. */
export type DcaTickOutcome = 'executed' | 'skipped' | 'failed';

/**
 * Told of every due tick, with how late it ran (due time to handling, in seconds); the
 * composition root connects it to the metrics, so `agents/` stays free of observability.
 */
export interface DcaTickObserver {
  observeTick(outcome: DcaTickOutcome, lagSeconds: number): void;
}
