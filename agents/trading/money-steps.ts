import { AppError } from '../../kernel/errors/app-error.js';
import type { Chain } from '../../kernel/ports/venue.port.js';
import type { KillSwitch } from '../config/trading-config.types.js';
import type { SubjectStatus } from '../portfolio/portfolio.types.js';

/**
 * The steps every movement of money shares, whether a trade, a DCA buy or a withdrawal: the
 * named checks that must hold for an account and a chain, and the limits a movement takes
 * before it runs and gives back when it turns out nothing moved. One place for each, so a
 * rule tightened here holds on every road (REST, MCP, chat commands, due jobs).
 */

export const MONEY_MESSAGES = {
  killSwitch: (chain: string) => `Trading kill switch is active for chain: ${chain}`,
} as const;

/**
 * The chain's kill switch. `retryable`: whether the caller may try again later as it is: a
 * trade refused here is simply not placed (false), a withdrawal that was already requested
 * waits for the switch to be released (true, as a 503 is).
 */
export async function killSwitchOpen(
  killSwitch: Pick<KillSwitch, 'isActive'>,
  chain: Chain,
  options: { retryable: boolean },
): Promise<void> {
  if (await killSwitch.isActive(chain))
    throw new AppError('KILL_SWITCH_ACTIVE', MONEY_MESSAGES.killSwitch(chain), options.retryable ? {} : { retryable: false });
}

/** A paused or archived account moves no money: neither a trade nor a withdrawal. */
export function accountActive(status: Pick<SubjectStatus, 'status'>): boolean {
  return status.status === 'active';
}

/**
 * The limits one movement has taken (the day's volume, a delegate wallet's cap, the day's
 * withdrawals), each with the step that gives it back. A movement that ends with nothing
 * moved calls `compensate` once: every limit taken is released, newest first, and none is
 * released twice. Releasing never fails the movement: a limit not given back only refuses
 * more than it should, until its day ends.
 */
export class Reservations {
  private readonly taken: Array<{ name: string; release: () => Promise<void> }> = [];

  /** Takes a limit (throws its refusal); once taken, `compensate` gives it back. */
  async take(name: string, reserve: () => Promise<void>, release: () => Promise<void>): Promise<void> {
    await reserve();
    this.taken.push({ name, release });
  }

  /** A limit taken elsewhere (in the commit that created the order or the withdrawal), given back like the others. */
  hold(name: string, release: () => Promise<void>): void {
    this.taken.push({ name, release });
  }

  /** Gives back every limit taken, newest first. */
  async compensate(): Promise<void> {
    const steps = this.taken.splice(0).reverse();
    for (const step of steps) await step.release().catch(() => undefined);
  }
}
