import type { Logger } from 'pino';
import { InProcessEventBus } from '../../adapters/event-bus/in-process-event-bus.adapter.js';
import { LmdbEventHistory } from '../../adapters/lmdb/lmdb-event-history.adapter.js';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { InProcessRateLimiter } from '../../adapters/rate-limit/in-process-rate-limiter.adapter.js';
import { InProcessScheduler } from '../../adapters/scheduler/in-process-scheduler.adapter.js';
import type { AppConfig } from '../config/config.schema.js';
import { embeddedBusHistoryDir, embeddedStoreDir } from './data-dir-layout.js';
import { STORED_AS_IS } from './store-compression.policy.js';
import { STORE_COMPRESSION_SAMPLES } from './store-compression.samples.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { EventBusPort } from '../../kernel/ports/event-bus.port.js';
import type { RateLimiterPort } from '../../kernel/ports/rate-limiter.port.js';
import type { SchedulerPort } from '../../kernel/ports/scheduler.port.js';
import type { StorePort } from '../../kernel/ports/store.port.js';

export interface Adapters {
  store: StorePort;
  scheduler: SchedulerPort;
  bus: EventBusPort;
  limiter: RateLimiterPort;
}

/**
 * Picks the adapters of the configuration: MongoDB when `MONGODB_URL` is set (else the
 * embedded LMDB store), BullMQ and the Redis bus when `REDIS_URL` is set (else in-process). This file (with the rest of
 * `src/composition/`) is the only place that imports `adapters/`.
 */
export async function buildAdapters(config: AppConfig, clock: ClockPort, logger: Logger): Promise<Adapters> {
  // The production adapters are imported only when configured: their drivers (mongodb, ioredis,
  // bullmq) cost a start of the embedded profile a fair share of its time otherwise.
  const store = config.mongo
    ? await (await import('../../adapters/mongo/mongo-store.adapter.js')).MongoStore.connect({
        url: config.mongo.url,
        dbName: config.mongo.dbName,
        clock,
      })
    : new LmdbStore({
        path: embeddedStoreDir(config.dataDir),
        clock,
        readCacheEntries: config.storeReadCacheEntries,
        compressionSamples: STORE_COMPRESSION_SAMPLES,
        storedAsIs: STORED_AS_IS,
        mapSize: config.storeMapSize,
      });
  if (!config.redis) {
    return {
      store,
      // The service logger: its lines (a failed due job) are JSON with the rest, secrets redacted, not console text.
      scheduler: new InProcessScheduler({ store, clock, logger }),
      // The replay history on disk, a small window on the heap; ids grow across restarts (see firstIdAfter).
      bus: new InProcessEventBus({
        clock,
        firstIdAfter: clock.now() * 1000,
        history: new LmdbEventHistory({
          path: embeddedBusHistoryDir(config.dataDir),
          logger: busLogger(logger),
          mapSize: config.storeMapSize,
        }),
        logger: busLogger(logger),
      }),
      limiter: new InProcessRateLimiter({ clock }),
    };
  }
  const [{ BullmqScheduler }, { RedisEventBus }, { RedisRateLimiter }] = await Promise.all([
    import('../../adapters/bullmq/bullmq-scheduler.adapter.js'),
    import('../../adapters/redis/redis-event-bus.adapter.js'),
    import('../../adapters/redis/redis-rate-limiter.adapter.js'),
  ]);
  return {
    store,
    scheduler: new BullmqScheduler({ redisUrl: config.redis.url, queueName: 'actor-schedules', prefix: config.redis.keyPrefix, logger }),
    bus: new RedisEventBus({ redisUrl: config.redis.url, keyPrefix: `${config.redis.keyPrefix}:`, clock }),
    limiter: new RedisRateLimiter({ redisUrl: config.redis.url, keyPrefix: `${config.redis.keyPrefix}:`, clock }),
  };
}

/** The bus's reports (a throwing handler, an unreadable history entry) as service log lines. */
function busLogger(logger: Logger): (message: string, context: Record<string, unknown>) => void {
  // pino serializes an error under `err` only (stack, cause); the bus names it `error`.
  return (message, { error, ...context }) => logger.warn(error === undefined ? context : { ...context, err: error }, message);
}
