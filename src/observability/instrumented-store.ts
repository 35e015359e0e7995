import type { StorePort } from '../../kernel/ports/store.port.js';
import type { Metrics } from './metrics.js';

const TIMED = ['get', 'put', 'commit', 'delete', 'find', 'list', 'readJournal', 'sweepExpired', 'durable'] as const;

/**
 * The same store, with the latency of every data call observed in `store_operation_duration_seconds`
 * by operation. Wrapping the port keeps adapters free of metrics code.
 */
export function instrumentStore(store: StorePort, metrics: Metrics): StorePort {
  const timed = Object.fromEntries(
    TIMED.map((op) => [
      op,
      async (...args: unknown[]) => {
        const started = performance.now();
        try {
          return await (store[op] as (...a: unknown[]) => Promise<unknown>).apply(store, args);
        } finally {
          metrics.observeStore(op, (performance.now() - started) / 1000);
        }
      },
    ]),
  );
  return {
    init: (collections) => store.init(collections),
    ping: () => store.ping(),
    close: () => store.close(),
    ...timed,
  } as StorePort;
}
