import { Redis } from 'ioredis';

/** Redis of the dev and CI machines; `REDIS_URL` points the tests elsewhere. */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** SCAN+DEL of one test's keys, never KEYS or FLUSHDB: other suites share this Redis. */
export async function deleteRedisKeys(prefix: string): Promise<number> {
  const redis = new Redis(TEST_REDIS_URL, { maxRetriesPerRequest: 1 });
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) deleted += await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
  return deleted;
}
