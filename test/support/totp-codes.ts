import { generate } from 'otplib';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import { ManualClock } from './manual-clock.adapter.js';

/** The code an authenticator app shows `steps` periods away from the clock's now. */
export async function codeAt(secret: string, clock: ClockPort, steps = 0): Promise<string> {
  return generate({ secret, epoch: Math.floor(clock.now() / 1000) + steps * 30 });
}

/** A 6-digit code valid at none of the accepted steps (−1, 0, +1). */
export async function wrongCode(secret: string, clock: ClockPort): Promise<string> {
  const valid = new Set(await Promise.all([-1, 0, 1].map((steps) => codeAt(secret, clock, steps))));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!valid.has(candidate)) return candidate;
  }
}

/**
 * A clock stopped now, for the codes of one activation and the steps after it. Counted on a
 * running clock, a 30 s boundary crossed between the activation (step 0) and the next code
 * ("now + 1") would put that code two steps past the activation: outside the ±1 the service
 * accepts, a failure once in a few dozen runs.
 */
export function stoppedClock(): ClockPort {
  return new ManualClock(Date.now());
}
