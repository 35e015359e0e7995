import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { DcaTickObserver } from '../../kernel/ports/dca-tick-observer.port.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { DcaTickMetrics } from '../../src/observability/dca-tick.metrics.js';
import { instrumentVenue, type BreakerAwareVenue } from '../../src/observability/instrumented-venue.js';
import { Metrics } from '../../src/observability/metrics.js';
import { TradingMetrics } from '../../src/observability/trading.metrics.js';
import type { ExecuteRequest, ExecutionResult } from '../../kernel/ports/venue.port.js';

/** The value of one series in the exposition text, e.g. `orders_total{status="filled",...}`. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

const order = (type: string, status: string, venue = 'paper', chain = 'solana') => ({
  type,
  data: { state: status, order: { order_id: 'ord_1', agentId: 'agt_1', status, venue, chain } },
});

describe('DcaTickMetrics', () => {
  it('counts every tick by outcome (each shown from 0) and its lag, through the DcaTickObserver the strategies service calls', async () => {
    const registry = new Registry();
    const observer: DcaTickObserver = new DcaTickMetrics(registry);
    const fresh = await registry.metrics();
    for (const outcome of ['executed', 'skipped', 'failed']) expect(seriesValue(fresh, `dca_ticks_total{outcome="${outcome}"}`)).toBe(0);

    observer.observeTick('executed', 2);
    observer.observeTick('executed', 0.5);
    observer.observeTick('skipped', 0.25);
    observer.observeTick('failed', -3); // a tick seen before its due time (clock skew) had no lag
    observer.observeTick('failed', Number.NaN); // counted, but no lag to record
    const text = await registry.metrics();
    expect(seriesValue(text, 'dca_ticks_total{outcome="executed"}')).toBe(2);
    expect(seriesValue(text, 'dca_ticks_total{outcome="skipped"}')).toBe(1);
    expect(seriesValue(text, 'dca_ticks_total{outcome="failed"}')).toBe(2);
    expect(seriesValue(text, 'dca_tick_lag_seconds_count')).toBe(4);
    expect(seriesValue(text, 'dca_tick_lag_seconds_sum')).toBe(2.75);
    expect(seriesValue(text, 'dca_tick_lag_seconds_bucket{le="0.05"}')).toBe(1);
    expect(seriesValue(text, 'dca_tick_lag_seconds_bucket{le="1"}')).toBe(3);
  });

  it('is part of every Metrics, under its prefix', async () => {
    const metrics = new Metrics({ defaultMetrics: false, prefix: 'svc_' });
    metrics.dcaTicks.observeTick('executed', 1);
    expect(seriesValue(await metrics.render(), 'svc_dca_ticks_total{outcome="executed"}')).toBe(1);
  });
});

describe('TradingMetrics', () => {
  it('counts order transitions by status, venue and chain, and refusals by check; ignores other events and ids', async () => {
    const registry = new Registry();
    const trading = new TradingMetrics(registry);
    trading.observeEvent(order('order.created', 'submitting'));
    trading.observeEvent(order('order.updated', 'filled'));
    trading.observeEvent(order('order.created', 'submitting', '0x', 'base'));
    trading.observeEvent(order('order.updated', 'failed', '0x', 'base'));
    trading.observeEvent({ type: 'order.updated', data: { order: { status: 42 } } });
    trading.observeEvent({ type: 'risk.blocked', data: { check: 'kill_switch', code: 'KILL_SWITCH_ACTIVE' } });
    trading.observeEvent({ type: 'risk.blocked', data: { check: 'kill_switch' } });
    trading.observeEvent({ type: 'risk.blocked', data: { check: 'balance' } });
    trading.observeEvent({ type: 'position.updated', data: { order: { status: 'filled' } } });
    const text = await registry.metrics();
    expect(seriesValue(text, 'orders_total{status="submitting",venue="paper",chain="solana"}')).toBe(1);
    expect(seriesValue(text, 'orders_total{status="filled",venue="paper",chain="solana"}')).toBe(1);
    expect(seriesValue(text, 'orders_total{status="submitting",venue="0x",chain="base"}')).toBe(1);
    expect(seriesValue(text, 'orders_total{status="failed",venue="0x",chain="base"}')).toBe(1);
    expect(seriesValue(text, 'orders_total{status="unknown",venue="unknown",chain="unknown"}')).toBe(1);
    expect(seriesValue(text, 'risk_refusals_total{check="kill_switch"}')).toBe(2);
    expect(seriesValue(text, 'risk_refusals_total{check="balance"}')).toBe(1);
    expect(text).not.toMatch(/agt_1|ord_1/);
  });

  it('reads every provider breaker at scrape time (0 closed, 1 half-open, 2 open) and survives a failing source', async () => {
    const registry = new Registry();
    const trading = new TradingMetrics(registry);
    let jupiter: 'closed' | 'half_open' | 'open' = 'closed';
    let venuesFail = false;
    trading.addBreakerSource(() => {
      if (venuesFail) throw new Error('venue gone');
      return [
        { provider: 'jupiter', state: jupiter },
        { provider: '0x', state: 'half_open' },
      ];
    });
    trading.addBreakerSource(() => [{ provider: 'llm.example', state: 'closed' }]);
    expect(seriesValue(await registry.metrics(), 'circuit_breaker_state{provider="jupiter"}')).toBe(0);
    jupiter = 'open';
    const text = await registry.metrics();
    expect(seriesValue(text, 'circuit_breaker_state{provider="jupiter"}')).toBe(2);
    expect(seriesValue(text, 'circuit_breaker_state{provider="0x"}')).toBe(1);
    expect(seriesValue(text, 'circuit_breaker_state{provider="llm.example"}')).toBe(0);
    venuesFail = true;
    const afterFailure = await registry.metrics();
    expect(seriesValue(afterFailure, 'circuit_breaker_state{provider="jupiter"}')).toBe(2);
    expect(seriesValue(afterFailure, 'circuit_breaker_state{provider="llm.example"}')).toBe(0);
  });
});

describe('instrumentVenue', () => {
  it('times each swap by provider, chain and outcome, and leaves every other call to the venue', async () => {
    const answers: Array<ExecutionResult | Error> = [
      { status: 'filled', filledOut: '10', txSignature: 'tx1', at: 0 },
      { status: 'failed', reason: 'slippage', message: 'slipped', at: 0 },
      AppError.circuitBreakerOpen('jupiter', 60),
      new Error('socket hang up'),
    ];
    const venue = {
      name: 'jupiter',
      chains: ['solana'],
      breakerOf: () => ({ provider: 'jupiter', state: 'closed' }),
      execute: async (_request: ExecuteRequest) => {
        const answer = answers.shift()!;
        if (answer instanceof Error) throw answer;
        return answer;
      },
      priceUsd: async () => 150,
    } as unknown as BreakerAwareVenue;
    const registry = new Registry();
    const timed = instrumentVenue(venue, new TradingMetrics(registry));
    const request = { clientOrderId: 'ord_1', chain: 'solana' } as ExecuteRequest;
    expect(await timed.execute(request)).toMatchObject({ status: 'filled' });
    expect(await timed.execute(request)).toMatchObject({ status: 'failed' });
    await expect(timed.execute(request)).rejects.toMatchObject({ code: 'CIRCUIT_BREAKER_OPEN' });
    await expect(timed.execute(request)).rejects.toThrow('socket hang up');
    expect(await timed.priceUsd('solana', 'SOL')).toBe(150);
    expect(timed.name).toBe('jupiter');
    expect(timed.market).toBeUndefined();
    const text = await registry.metrics();
    for (const outcome of ['filled', 'failed', 'circuit_open', 'error']) {
      expect(seriesValue(text, `swap_duration_seconds_count{venue="jupiter",chain="solana",outcome="${outcome}"}`), outcome).toBe(1);
    }
  });
});
