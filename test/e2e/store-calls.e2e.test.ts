/**
 * Store and actor calls per flow stay at or under their ceilings (counted, not timed: the
 * same on every run). A layer that reads again what the request already holds (the agent,
 * the wallet, the bot) raises a count and fails here; lower a ceiling when a flow gets cheaper.
 * The table itself: `npm run bench:store-calls`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLOWS, type FlowName, startStoreCallBench, type StoreCallBench } from '../support/store-call-flows.js';

// Each flow's audit entry costs one commit (its segment and chain head): the audit log keeps the
// head it wrote last and its signer holds the active key, so neither is read per flow even though
// the bench's clock moves past the signing interval before each. The account is read once per
// request at its boundary (DECISIONS "One account context per request").
const CEILINGS: Record<FlowName, number> = {
  'REST EVM swap': 16,
  'MCP swap': 16,
  'DCA tick': 15,
  withdrawal: 21,
  'widget chat': 7,
  'REST command': 16,
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
