import type { ClockPort } from '../../src/ports/clock.port.js';

interface PendingTimer {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * A clock that only moves when told: tests (and simulations) drive time with
 * `advance`, which fires due timers in time order.
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
    const timer: PendingTimer = { at: this.current + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((t) => t !== timer);
    };
  }

  /** Moves time forward by `ms`, firing each due timer at its own time. */
  async advance(ms: number): Promise<void> {
    const target = this.current + ms;
    for (;;) {
      const next = this.timers
        .filter((t) => t.at <= target)
        .sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
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
