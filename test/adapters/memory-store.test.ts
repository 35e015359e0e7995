import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { storeContract } from '../contracts/store.contract.js';

storeContract('MemoryStore', async () => {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  return { store, clock, cleanup: () => store.close() };
});
