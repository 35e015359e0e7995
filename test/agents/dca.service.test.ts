import { beforeEach, describe, expect, it } from 'vitest';
import { DCA_NAMES_COLLECTION, DcaService } from '../../agents/dca.service.js';
import { dcaStrategyDefinition, type DcaStrategyContext } from '../../machines/dca-strategy.machine.js';
import type { RepeatingSchedule } from '../../src/ports/scheduler.port.js';
import { SUBJECT, USDC, tradingHarness, type TradingHarness } from './trading-harness.js';

/** A scheduler that keeps schedules in a map; `hold` makes the next scheduleRepeating wait for `release`. */
function recordingScheduler() {
  const schedules = new Map<string, RepeatingSchedule>();
  let held: { entered: () => void; gate: Promise<void> } | undefined;
  let release = () => {};
  return {
    schedules,
    /** Resolves once the next scheduleRepeating has started; it completes after `release()`. */
    hold(): Promise<void> {
      return new Promise<void>((entered) => {
        held = { entered, gate: new Promise<void>((open) => (release = open)) };
      });
    },
    release: () => release(),
    port: {
      scheduleRepeating: async (schedule: RepeatingSchedule) => {
        const waiting = held;
        held = undefined;
        if (waiting) {
          waiting.entered();
          await waiting.gate;
        }
        schedules.set(schedule.scheduleId, schedule);
      },
      removeSchedule: async (id: string) => void schedules.delete(id),
      nextRun: async (id: string) => (schedules.has(id) ? 0 : null),
      scheduleOnce: async () => undefined,
      cancel: async () => undefined,
    },
  };
}

describe('DCA strategies service', () => {
  let h: TradingHarness;
  let scheduler: ReturnType<typeof recordingScheduler>;
  let dca: DcaService;

  beforeEach(async () => {
    h = await tradingHarness();
    h.runtime.register(dcaStrategyDefinition);
    await h.store.init([...h.runtime.collections(), DCA_NAMES_COLLECTION]);
    scheduler = recordingScheduler();
    let ids = 0;
    dca = new DcaService({
      actors: h.runtime,
      store: h.store,
      scheduler: scheduler.port,
      pipeline: h.pipeline,
      venue: h.venue,
      config: { get: async () => h.state.config },
      status: h.status,
      clock: h.clock,
      newId: () => `s${++ids}`,
    });
  });

  const create = (name: string, amount = '10') => dca.create(SUBJECT, undefined, { name, inputToken: 'USDC', outputToken: 'SOL', amount, interval: 'every 1 minutes' });

  it('a resume racing a delete leaves no schedule behind for the deleted strategy', async () => {
    const created = await create('raced');
    await dca.pause(SUBJECT, undefined, 'raced');
    expect(scheduler.schedules.size).toBe(0);
    // The resume has moved the strategy to active and is arming its schedule when the delete runs whole.
    const entered = scheduler.hold();
    const resuming = dca.resume(SUBJECT, undefined, 'raced');
    await entered;
    await dca.delete(SUBJECT, undefined, 'raced');
    scheduler.release();
    await resuming;
    expect((await h.runtime.get({ type: 'dca-strategy', id: created.strategyId }))?.state).toBe('deleted');
    expect(scheduler.schedules.size).toBe(0);
  });

  it('a tick refused before its order was created names no order', async () => {
    await h.fund(USDC, '1000000'); // 1 USDC: a 10 USDC buy is refused by the balance check
    const created = await create('short');
    const dueAt = h.clock.now();
    await dca.onTick({ id: `dca:${created.strategyId}`, kind: 'repeat', address: { type: 'dca-strategy', id: created.strategyId }, event: { type: 'dca.tick' }, dueAt });
    const context = (await h.runtime.get({ type: 'dca-strategy', id: created.strategyId }))!.context as DcaStrategyContext;
    expect(context).toMatchObject({ failures: 1, lastError: 'Insufficient balance for requested swap amount' });
    expect(context.lastOrderId).toBeUndefined();
    expect(await h.runtime.get({ type: 'order', id: `ord_${created.strategyId}_${dueAt}` })).toBeNull();
  });
});
