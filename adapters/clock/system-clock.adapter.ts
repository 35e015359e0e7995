import type { ClockPort } from '../../kernel/ports/clock.port.js';

/** The wall clock; timers are unref'd so they never keep the process alive on their own. */
export class SystemClock implements ClockPort {
  now(): number {
    return Date.now();
  }

  setTimer(fn: () => void, ms: number): () => void {
    const handle = setTimeout(fn, Math.max(0, ms));
    handle.unref();
    return () => clearTimeout(handle);
  }
}
