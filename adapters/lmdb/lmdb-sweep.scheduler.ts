import type { ClockPort } from '../../kernel/ports/clock.port.js';

/**
 * Runs a TTL sweep every `intervalMs` on the ClockPort's timers (so tests drive it with a
 * ManualClock), rescheduling after each sweep finishes so two never overlap.
 */
export class SweepScheduler {
  private cancel: (() => void) | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly clock: ClockPort,
    private readonly intervalMs: number,
    private readonly sweep: () => Promise<unknown>,
  ) {}

  /** Starts the timer; further calls while it runs do nothing. */
  start(): void {
    if (!this.stopped && !this.cancel && !this.running) this.schedule();
  }

  /** Cancels the timer and waits for a sweep in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.cancel?.();
    this.cancel = undefined;
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.cancel = this.clock.setTimer(() => {
      this.cancel = undefined;
      this.running = this.sweep()
        // Nobody awaits the sweeper; reads filter expired documents, so a failed sweep only delays cleanup.
        .then(
          () => undefined,
          (error: unknown) => process.emitWarning(`TTL sweep failed: ${String(error)}`),
        )
        .finally(() => {
          this.running = undefined;
          this.schedule();
        });
    }, this.intervalMs);
  }
}
