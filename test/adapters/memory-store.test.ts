import { ManualClock } from '../../adapters/clock/manual-clock.adapter.js';
import { MemoryStore } from '../../adapters/memory/memory-store.adapter.js';
import { storeContract } from '../contracts/store.contract.js';

storeContract('MemoryStore', async () => {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  return { store, clock, cleanup: () => store.close() };
});
