/**
 * Store and actor calls per flow stay at or under their ceilings (counted, not timed: the
 * same on every run). A layer that reads again what the request already holds (the agent,
 * the wallet, the bot) raises a count and fails here; lower a ceiling when a flow gets cheaper.
 * The table itself: `npm run bench:store-calls`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOWS, type FlowName, startStoreCallBench, type StoreCallBench } from '../support/store-call-flows.js';

// Each flow's audit entry also reads its chain's head, and a head due for signing reads the
// active signing key (the bench's clock moves past the signing interval before each flow). The
// account is read once per request at its boundary (DECISIONS "One account context per request").
const CEILINGS: Record<FlowName, number> = {
  'REST EVM swap': 25,
  'MCP swap': 24,
  'DCA tick': 26,
  withdrawal: 33,
  'widget chat': 9,
  'REST command': 24,
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
