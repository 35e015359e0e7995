import type { ClockPort } from '../../kernel/ports/clock.port.js';

/**
 * A driven clock for benches: service time runs at `speed` times wall time from the moment it
 * is made (0.2: a service minute lasts five wall minutes), and every timer the service sets
 * stretches by the same factor. Strategies due once a service minute then arrive `speed`
 * times as fast in wall time, so a machine that cannot keep up with 50,000 one-minute
 * strategies in real time still runs them all and shows what each tick costs in CPU (which
 * does not depend on the clock). Lags read off this clock are in service milliseconds;
 * divide by `speed` for wall milliseconds.
 */
export class ScaledClock implements ClockPort {
  private readonly wallOrigin = Date.now();

  constructor(private readonly speed: number) {
    if (!(speed > 0)) throw new Error(`clock speed must be positive, got ${speed}`);
  }

  now(): number {
    return this.wallOrigin + Math.floor((Date.now() - this.wallOrigin) * this.speed);
  }

  setTimer(fn: () => void, ms: number): () => void {
    const handle = setTimeout(fn, Math.max(0, ms / this.speed));
    handle.unref();
    return () => clearTimeout(handle);
  }

  /** Service milliseconds as wall milliseconds. */
  toWallMs(serviceMs: number): number {
    return serviceMs / this.speed;
  }
}
