/**
 * DCA strategies on the embedded profile with a driven clock: exactly one
 * order per minute, pause stops, resume continues without a burst, delete removes the
 * schedule, a duplicated tick buys once, a tick missed while down runs once (catchUp)
 * or not at all.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { startFundedOperator } from '../support/dca-service.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

const MINUTE = 60_000;
const T0 = Date.parse('2026-11-21T12:00:30Z');

describe('DCA strategies, embedded scheduler, driven clock (e2e)', () => {
  const running: TestService[] = [];
  afterEach(async () => {
    for (const svc of running.splice(0)) await svc.stop();
  });

  async function setUp(clock: ManualClock, env: Record<string, string> = {}) {
    const { svc, operator, agent, http, orders } = await startFundedOperator(clock, env, running);
    /** Ticks a strategy has handled (bought, failed or skipped), read from the store. */
    const handled = (name: string) => async () => {
      const page = await svc.service.runtime.find('dca-strategy', { index: 'subject', eq: `agent:${agent.agentId}` }, { limit: 50 });
      const context = page.items
        .map((item) => item.context as { name: string; buys: number; failures: number; skipped: number })
        .find((c) => c.name === name);
      return context ? context.buys + context.failures + context.skipped : 0;
    };
    return { svc, operator, http, agent, orders, handled };
  }

  /**
   * Moves the clock minute by minute; `handled` (when given) says how many ticks the
   * strategy has handled so far, so each minute waits for its tick to finish in real time
   * before the clock moves on (a tick still running when the clock jumps would be late).
   */
  async function minutes(clock: ManualClock, n: number, handled?: () => Promise<number>) {
    for (let i = 0; i < n; i++) {
      const before = handled ? await handled() : 0;
      await clock.advance(MINUTE);
      if (handled) await expect.poll(handled, { timeout: 5_000, interval: 5 }).toBeGreaterThan(before);
    }
  }

  it('buys once a minute, stops when paused, resumes without a burst, and delete removes the schedule', async () => {
    const clock = new ManualClock(T0);
    const { http, operator, orders, handled } = await setUp(clock);
    const ticks = handled('sol-minutely');
    const created = await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: 'sol-minutely',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '10',
      interval: 'every 1 minutes',
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'sol-minutely', status: 'active', interval: 'every 1 minutes', catchUp: true, buys: 0 });

    await minutes(clock, 5, ticks);
    let dcaOrders = (await orders()).filter((o) => o.strategy === 'sol-minutely');
    expect(dcaOrders).toHaveLength(5);
    expect(dcaOrders.every((o) => o.status === 'filled' && o.channel === 'dca')).toBe(true);
    expect((await http.get(`/api/nest/trading/strategies/${operator.userId}`)).body.items[0]).toMatchObject({ buys: 5, failures: 0 });
    expect((await http.get(`/api/nest/trading/strategies/${operator.userId}?limit=1`)).body).toEqual({
      items: [expect.objectContaining({ name: 'sol-minutely' })],
    });
    expect((await http.get(`/api/nest/trading/strategies/${operator.userId}?limit=0`)).status).toBe(400);

    expect((await http.post(`/api/nest/trading/dca/pause/${operator.userId}`, { name: 'sol-minutely' })).body.items[0].status).toBe(
      'paused',
    );
    await minutes(clock, 3);
    expect((await orders()).filter((o) => o.strategy === 'sol-minutely')).toHaveLength(5);

    await http.post(`/api/nest/trading/dca/resume/${operator.userId}`, {});
    await clock.advance(1_000); // no burst of the three missed minutes
    expect((await orders()).filter((o) => o.strategy === 'sol-minutely')).toHaveLength(5);
    await minutes(clock, 2, ticks);
    dcaOrders = (await orders()).filter((o) => o.strategy === 'sol-minutely');
    expect(dcaOrders).toHaveLength(7);

    const stats = await http.get(`/api/nest/trading/dca/stats/${operator.userId}`);
    expect(stats.body.strategies[0]).toMatchObject({
      name: 'sol-minutely',
      buys: 7,
      spent: '70',
      inputSymbol: 'USDC',
      outputSymbol: 'SOL',
      nextRun: expect.any(String),
    });
    expect(Number(stats.body.strategies[0].averagePriceUsd)).toBeGreaterThan(0);
    expect(stats.body.totals).toMatchObject({ strategies: 1, buys: 7, spentUsd: '70.00' });

    expect((await http.delete(`/api/nest/trading/strategies/${operator.userId}/sol-minutely`)).status).toBe(200);
    expect((await http.get(`/api/nest/trading/strategies/${operator.userId}`)).body.items).toEqual([]);
    await minutes(clock, 2);
    expect((await orders()).filter((o) => o.strategy === 'sol-minutely')).toHaveLength(7);
    expect((await http.delete(`/api/nest/trading/strategies/${operator.userId}/sol-minutely`)).status).toBe(404);
  });

  it('the same tick delivered twice buys once', async () => {
    const clock = new ManualClock(T0);
    const { svc, http, operator, orders } = await setUp(clock);
    const created = await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: 'dup',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '5',
      interval: 'every 1 hours',
    });
    const tick = {
      id: `dca:${created.body.strategyId}`,
      kind: 'repeat' as const,
      address: { type: 'dca-strategy', id: created.body.strategyId },
      event: { type: 'dca.tick' },
      dueAt: clock.now(),
    };
    const handler = svc.service.dueJobs.deliver;
    await Promise.all([handler(tick), handler(tick)]);
    await handler(tick);
    const bought = (await orders()).filter((o) => o.strategy === 'dup');
    expect(bought).toHaveLength(1);
    expect(bought[0]!.order_id).toMatch(/^ord_[A-Za-z0-9_-]{24}$/); // one order id format, DCA included
  });

  it('names are unique per user; bad bodies list every problem', async () => {
    const clock = new ManualClock(T0);
    const { http, operator } = await setUp(clock);
    const body = { name: 'x1', inputToken: 'USDC', outputToken: 'SOL', amount: '1', interval: '*/5 * * * *' };
    expect((await http.post(`/api/nest/trading/strategies/${operator.userId}`, body)).status).toBe(201);
    expect((await http.post(`/api/nest/trading/strategies/${operator.userId}`, body)).status).toBe(409);
    const bad = await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: '',
      inputToken: 'USDC',
      amount: '-1',
      interval: 'sometimes',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(
      expect.arrayContaining([expect.stringContaining('name'), expect.stringContaining('outputToken'), expect.stringContaining('amount')]),
    );
    const interval = await http.post(`/api/nest/trading/strategies/${operator.userId}`, { ...body, name: 'x2', interval: 'sometimes' });
    expect(interval).toMatchObject({
      status: 400,
      body: { message: ['interval must be a cron expression or "every <n> <minutes|hours|days>"'] },
    });
    expect(
      (await http.post(`/api/nest/trading/strategies/${operator.userId}`, { ...body, name: 'x3', outputToken: 'NOPE' })).body.message,
    ).toBe('Token not found: NOPE');
    // Every buy of it would be refused by the P3 constraint: refused now, and the name stays free.
    const p3 = await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      ...body,
      name: 'x4',
      inputToken: 'BONK',
      outputToken: 'SOL',
    });
    expect(p3).toMatchObject({ status: 400, body: { message: 'inputMint must be native SOL or USDC (P3 constraint)' } });
    expect((await http.post(`/api/nest/trading/strategies/${operator.userId}`, { ...body, name: 'x4' })).status).toBe(201);
  });

  it('completes at endAt: after its last buy, while paused, or with no run before its end; reads then show it completed', async () => {
    const clock = new ManualClock(T0);
    const { http, operator, orders, handled } = await setUp(clock);
    const url = `/api/nest/trading/strategies/${operator.userId}`;
    const body = {
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '1',
      interval: 'every 1 minutes',
      endAt: new Date(T0 + 2.5 * MINUTE).toISOString(),
    };
    for (const extra of [{ name: 'ends' }, { name: 'ends-paused' }, { name: 'ends-before-a-run', interval: 'every 1 hours' }]) {
      expect((await http.post(url, { ...body, ...extra })).status).toBe(201);
    }
    await http.post(`/api/nest/trading/dca/pause/${operator.userId}`, { name: 'ends-paused' });
    await minutes(clock, 2, handled('ends'));
    const statuses = async () =>
      Object.fromEntries(((await http.get(url)).body.items as Array<{ name: string; status: string }>).map((s) => [s.name, s.status]));
    expect(await statuses()).toEqual({ ends: 'active', 'ends-paused': 'paused', 'ends-before-a-run': 'active' });

    await clock.advance(MINUTE); // past the end: no run is left for any of them
    await expect
      .poll(statuses, { timeout: 5_000, interval: 5 })
      .toEqual({ ends: 'completed', 'ends-paused': 'completed', 'ends-before-a-run': 'completed' });
    const stats = await http.get(`/api/nest/trading/dca/stats/${operator.userId}`);
    expect(stats.body.strategies).toEqual(
      ['ends', 'ends-before-a-run', 'ends-paused'].map((name) => expect.objectContaining({ name, status: 'completed', nextRun: null })),
    );
    expect((await orders()).filter((o) => o.strategy === 'ends')).toHaveLength(2);
  });

  it('a tick that finds its strategy past the end completes it instead of skipping it silently', async () => {
    const clock = new ManualClock(T0);
    const { svc, http, operator, orders } = await setUp(clock);
    const url = `/api/nest/trading/strategies/${operator.userId}`;
    const created = await http.post(url, {
      name: 'late',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '1',
      interval: 'every 10 minutes',
      endAt: new Date(T0 + 15 * MINUTE).toISOString(),
    });
    clock.jumpTo(T0 + 20 * MINUTE); // no timer fires: only the late tick below sees the end
    const handler = svc.service.dueJobs.deliver;
    await handler({
      id: `dca:${created.body.strategyId}`,
      kind: 'repeat',
      address: { type: 'dca-strategy', id: created.body.strategyId },
      event: { type: 'dca.tick' },
      dueAt: T0 + 10 * MINUTE,
    });
    await signInSolana(http, operator.wallet); // the session of T0 has expired
    expect((await http.get(url)).body.items).toEqual([expect.objectContaining({ name: 'late', status: 'completed', buys: 0 })]);
    expect((await orders()).filter((o) => o.strategy === 'late')).toHaveLength(0);
  });

  it('a strategy without an end job (created before it existed) gets one at start and completes past its end', async () => {
    const clock = new ManualClock(T0);
    const { svc, http, operator } = await setUp(clock);
    const created = await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: 'old',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '1',
      interval: 'every 1 hours',
      endAt: new Date(T0 + 10 * MINUTE).toISOString(),
    });
    // As data from before end jobs: no end job, and no marker saying older strategies got theirs.
    await svc.service.adapters.scheduler.cancel(`dca-end:${created.body.strategyId}`);
    const { store } = svc.service.adapters;
    const marker = await store.get('trading.dca-names', '~end-jobs-armed');
    expect(marker).not.toBeNull(); // written at the first start, so later starts skip the scan
    await store.delete('trading.dca-names', '~end-jobs-armed', marker!.version);
    await svc.service.stop();
    clock.jumpTo(T0 + 20 * MINUTE);
    const restarted = await startTestService({ clock, dataDir: svc.dataDir });
    running.push(restarted);
    const state = async () => (await restarted.service.runtime.get({ type: 'dca-strategy', id: created.body.strategyId }))?.state;
    await expect.poll(state, { timeout: 5_000, interval: 5 }).toBe('completed');
  });

  it("refuses at creation what could never buy, and lists checks across fields with the body's other problems", async () => {
    const clock = new ManualClock(T0);
    const { http, operator } = await setUp(clock);
    const url = `/api/nest/trading/strategies/${operator.userId}`;
    const body = { name: 'never', inputToken: 'USDC', outputToken: 'SOL', amount: '10', interval: 'every 1 minutes' };
    for (const maxSpend of ['5', '0', '9.999999']) {
      expect(await http.post(url, { ...body, maxSpend }), maxSpend).toMatchObject({
        status: 400,
        body: { message: ['maxSpend must be at least amount'] },
      });
    }
    const iso = (ms: number) => new Date(ms).toISOString();
    expect(await http.post(url, { ...body, startAt: iso(T0 + 120 * MINUTE), endAt: iso(T0 + 60 * MINUTE) })).toMatchObject({
      status: 400,
      body: { message: ['endAt must be after startAt and in the future'] },
    });
    const { name: _name, ...nameless } = body;
    for (const [extra, first] of [
      [{}, 'name is required'],
      [{ name: '' }, expect.stringMatching(/^name: /)],
    ] as const) {
      const listed = await http.post(url, { ...nameless, ...extra, maxSpend: '1', endAt: iso(T0 - MINUTE) });
      expect(listed).toMatchObject({
        status: 400,
        body: { message: [first, 'maxSpend must be at least amount', 'endAt must be after startAt and in the future'] },
      });
    }
    // Every buy would fail: less than one base unit of USDC, or a swap of a token into itself (by symbol or by address).
    expect(await http.post(url, { ...body, amount: '0.0000001' })).toMatchObject({
      status: 400,
      body: { message: ['amount is below the smallest unit of USDC (0.000001)'] },
    });
    // Digits USDC cannot hold would be dropped from every buy; trailing zeros are fine.
    expect(await http.post(url, { ...body, amount: '1.0000009' })).toMatchObject({
      status: 400,
      body: { message: ['amount has more decimals than USDC has (6)'] },
    });
    expect(await http.post(url, { ...body, interval: 'every 367 days' })).toMatchObject({
      status: 400,
      body: { message: ['interval must be at most every 366 days'] },
    });
    for (const outputToken of ['USDC', 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v']) {
      expect(await http.post(url, { ...body, outputToken }), outputToken).toMatchObject({
        status: 400,
        body: { message: ['inputToken and outputToken must be different tokens'] },
      });
    }
    expect((await http.post(url, { ...body, amount: '0.0000010', maxSpend: '10', interval: 'every 366 days' })).status).toBe(201);
    expect((await http.get(url)).body.items.map((s: { name: string }) => s.name)).toEqual(['never']);
  });

  it('resuming an active strategy changes nothing: its next buy stays where it was', async () => {
    const clock = new ManualClock(T0);
    const { http, operator } = await setUp(clock);
    await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: 'steady',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '1',
      interval: 'every 1 minutes',
    });
    await clock.advance(30_000);
    const nextRun = async () => (await http.get(`/api/nest/trading/dca/stats/${operator.userId}`)).body.strategies[0].nextRun;
    expect(await nextRun()).toBe(new Date(T0 + MINUTE).toISOString());
    const resumed = await http.post(`/api/nest/trading/dca/resume/${operator.userId}`, { name: 'steady' });
    expect(resumed).toMatchObject({ status: 200, body: { items: [expect.objectContaining({ name: 'steady', status: 'active' })] } });
    expect(await nextRun()).toBe(new Date(T0 + MINUTE).toISOString());
  });

  it('resuming an active strategy that lost its schedule (a pause that failed halfway) schedules it again', async () => {
    const clock = new ManualClock(T0);
    const { svc, http, operator } = await setUp(clock);
    const created = await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: 'orphan',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '1',
      interval: 'every 1 minutes',
    });
    await svc.service.adapters.scheduler.removeSchedule(`dca:${created.body.strategyId}`);
    const nextRun = async () => (await http.get(`/api/nest/trading/dca/stats/${operator.userId}`)).body.strategies[0].nextRun;
    expect(await nextRun()).toBeNull();
    await http.post(`/api/nest/trading/dca/resume/${operator.userId}`, { name: 'orphan' });
    expect(await nextRun()).toBe(new Date(T0 + MINUTE).toISOString());
  });

  it('the end job completes the strategy even when the clock of its process is a little behind the end', async () => {
    const clock = new ManualClock(T0);
    const { svc, http, operator } = await setUp(clock);
    const endAt = T0 + 10 * MINUTE;
    const created = await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: 'ending',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '1',
      interval: 'every 1 hours',
      endAt: new Date(endAt).toISOString(),
    });
    clock.jumpTo(endAt - 5); // delivered by a process whose clock runs 5 ms behind
    const address = { type: 'dca-strategy', id: created.body.strategyId };
    await svc.service.dueJobs.deliver({ id: `dca-end:${address.id}`, kind: 'once', address, event: { type: 'dca.end' }, dueAt: endAt });
    expect((await svc.service.runtime.get(address))?.state).toBe('completed');
  });

  it.each([
    [true, 1],
    [false, 0],
  ])('a tick missed while the service was down runs once at restart when catchUp is %s (%i orders)', async (catchUp, expected) => {
    const clock = new ManualClock(T0);
    const { svc, http, operator, orders, handled } = await setUp(clock);
    await http.post(`/api/nest/trading/strategies/${operator.userId}`, {
      name: 'cu',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '1',
      interval: 'every 1 minutes',
      catchUp,
    });
    await minutes(clock, 2, handled('cu'));
    expect((await orders()).filter((o) => o.strategy === 'cu')).toHaveLength(2);

    // Down for ten minutes, then back on the same data.
    await svc.service.stop();
    clock.jumpTo(clock.now() + 10 * MINUTE);
    const restarted = await startTestService({ clock, dataDir: svc.dataDir });
    running.push(restarted);
    const again = new Client(restarted.url);
    const ticks = async () => {
      const page = await restarted.service.runtime.find('dca-strategy', { index: 'state', eq: 'active' }, { limit: 10 });
      const context = page.items[0]!.context as { buys: number; failures: number; skipped: number };
      return context.buys + context.failures + context.skipped;
    };
    // The missed tick is delivered once at start (one handled tick, a buy or a skip).
    await expect.poll(ticks, { timeout: 5_000, interval: 5 }).toBe(3);
    await signInSolana(again, operator.wallet);
    const count = async () =>
      ((await again.get(`/api/nest/trading/orders/${operator.userId}?limit=200`)).body.items as Array<{ strategy?: string }>).filter(
        (o) => o.strategy === 'cu',
      ).length;
    expect(await count()).toBe(2 + expected);
    await minutes(clock, 2, ticks);
    expect(await count()).toBe(4 + expected);
  });
});
