/**
 * Store and actor calls per flow stay at or under their ceilings (counted, not timed: the
 * same on every run). A layer that reads again what the request already holds (the agent,
 * the wallet, the bot) raises a count and fails here; lower a ceiling when a flow gets cheaper.
 * The table itself: `npm run bench:store-calls`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOWS, type FlowName, startStoreCallBench, type StoreCallBench } from '../support/store-call-flows.js';

const CEILINGS: Record<FlowName, number> = {
  'REST EVM swap': 27,
  'MCP swap': 29,
  'DCA tick': 29,
  withdrawal: 39,
  'widget chat': 12,
  'REST command': 27,
};

describe('store and actor calls per flow', () => {
  let bench: StoreCallBench;
  beforeAll(async () => {
    bench = await startStoreCallBench();
  }, 60_000);
  afterAll(() => bench.stop());

  it.each(FLOWS)('%s stays at or under its ceiling', async (flow) => {
    const count = await bench.run(flow);
    expect(count.total, JSON.stringify(count.byTarget)).toBeLessThanOrEqual(CEILINGS[flow]);
  });
});
