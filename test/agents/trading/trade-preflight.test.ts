import { beforeEach, describe, expect, it } from 'vitest';
import { DailyVolume } from '../../../agents/trading/daily-volume.js';
import { PREFLIGHT_CHECKS, TradePreflight } from '../../../agents/trading/trade-preflight.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { SOL, USDC, SUBJECT, buyRequest, tradingHarness, type TradingHarness } from '../../support/trading-harness.js';

/** A trade's dry run: the safety path's verdicts in order, the daily volume read, nothing published or reserved. */
describe('trade preflight', () => {
  let h: TradingHarness;
  let preflight: TradePreflight;
  let volume: DailyVolume;
  const shape = (checks: { check: string; verdict: string }[]) => checks.map((check) => `${check.check}: ${check.verdict}`);
  const refusedAt = (at: string) => {
    const position = PREFLIGHT_CHECKS.indexOf(at as (typeof PREFLIGHT_CHECKS)[number]);
    return PREFLIGHT_CHECKS.map((check, index) => `${check}: ${index < position ? 'passed' : index === position ? 'refused' : 'not_run'}`);
  };

  beforeEach(async () => {
    h = await tradingHarness();
    await h.fund(SOL, '10000000000'); // 10 SOL
    await h.fund(USDC, '5000000000000');
    volume = new DailyVolume(h.store);
    preflight = new TradePreflight({ safety: h.safety, volume, clock: h.clock });
  });

  it('an open breaker refused at circuit_breaker with its retry advice; the quote it interrupted not run; no risk.blocked', async () => {
    h.state.breaker = 'open';
    const result = await preflight.run(buyRequest());
    expect(shape(result.checks)).toEqual(refusedAt('circuit_breaker'));
    expect(result.checks.find((check) => check.check === 'circuit_breaker')).toEqual({
      check: 'circuit_breaker',
      verdict: 'refused',
      code: 'CIRCUIT_BREAKER_OPEN',
      message: 'Circuit breaker open for provider: paper',
      retryable: true,
      retryAfter: 60,
    });
    expect(result.trade).toBeUndefined();
    await h.runtime.settled();
    expect(h.events.some((event) => event.type === 'risk.blocked')).toBe(false);
  });

  it('the kill switch refused at its place; a scope refusal first does not stop the other checks', async () => {
    h.state.killed.add('solana');
    const killed = await preflight.run(buyRequest());
    expect(shape(killed.checks)).toEqual(refusedAt('kill_switch'));
    expect(killed.checks[2]).toMatchObject({ code: 'KILL_SWITCH_ACTIVE', message: 'Trading kill switch is active for chain: solana' });
    h.state.killed.clear();
    const scoped = await preflight.run(buyRequest(), AppError.scopeInsufficient('trade', 'read'));
    expect(scoped.passed).toBe(false);
    expect(shape(scoped.checks).slice(1)).toEqual(PREFLIGHT_CHECKS.slice(1).map((check) => `${check}: passed`));
  });

  it('reads the daily volume without reserving it, and says when approval would hold the order', async () => {
    h.state.config = {
      ...h.state.config,
      riskPolicy: { ...h.state.config.riskPolicy, dailyVolumeUsd: 1_000_000 },
      defaultOrderProfile: { ...h.state.config.defaultOrderProfile, autoApprove: false },
    };
    const first = await preflight.run(buyRequest());
    const second = await preflight.run(buyRequest());
    expect(first.passed && second.passed).toBe(true);
    expect(second.trade).toMatchObject({ approval: 'approval_required', approvalReason: expect.stringContaining('autoApprove off') });
    // Nothing was taken: a reservation of the whole limit still fits.
    await expect(volume.reserve(SUBJECT, 1_000_000, 1_000_000, h.clock.now())).resolves.toBeUndefined();
    const over = await preflight.run(buyRequest());
    expect(shape(over.checks)).toEqual(refusedAt('daily_volume'));
  });
});
