import type { ClockPort } from '../../kernel/ports/clock.port.js';

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A clock that only moves when told: tests (and simulations) drive time with
 * `advance`, which fires due timers in time order. A timer set already due (0 ms or less)
 * fires on the next turn of the event loop, as with a real clock: waiting for the next
 * `advance` would hold back work a real process does at once (a scheduler re-arming a run
 * that fell due while it was busy).
 */
export class ManualClock implements ClockPort {
  private current: number;
  private timers: PendingTimer[] = [];
  private seq = 0;

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): () => void {
    if (ms <= 0) {
      const immediate = setImmediate(fn);
      return () => clearImmediate(immediate);
    }
    const timer: PendingTimer = { at: this.current + ms, seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward by `ms`, firing each due timer at its own time. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      const next = this.timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.current = Math.max(this.current, next.at);
      next.fn();
      // Let promise chains started by the timer run before the next one fires.
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.current = target;
  }

  /** Sets the time without firing timers in between (a process that was down). */
  jumpTo(epochMs: number): void {
    this.current = epochMs;
  }
}
