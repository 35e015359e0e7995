import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { RedisRateLimiter } from '../../adapters/redis/redis-rate-limiter.adapter.js';
import type { RateWindow } from '../../kernel/ports/rate-limiter.port.js';
import { rateLimiterContract } from '../contracts/rate-limiter.contract.js';
import { deleteRedisKeys, TEST_REDIS_URL } from '../support/redis.js';

rateLimiterContract('redis', async (clock) => {
  const keyPrefix = `test:${randomUUID()}:`;
  const limiter = new RedisRateLimiter({ redisUrl: TEST_REDIS_URL, keyPrefix, clock });
  return {
    limiter,
    cleanup: async () => {
      await limiter.close();
      await deleteRedisKeys(keyPrefix);
    },
  };
});

const windows: RateWindow[] = [
  { name: 'minute', limit: 120, windowMs: 60_000 },
  { name: 'hour', limit: 3000, windowMs: 3_600_000 },
];

describe('RedisRateLimiter', () => {
  let admin: Redis;
  const prefixes: string[] = [];
  const limiters: RedisRateLimiter[] = [];
  const make = (keyPrefix: string, clock: ManualClock): RedisRateLimiter => {
    const limiter = new RedisRateLimiter({ redisUrl: TEST_REDIS_URL, keyPrefix, clock });
    limiters.push(limiter);
    return limiter;
  };
  const newPrefix = (): string => {
    const prefix = `test:${randomUUID()}:`;
    prefixes.push(prefix);
    return prefix;
  };
  beforeAll(() => {
    admin = new Redis(TEST_REDIS_URL);
  });
  afterAll(async () => {
    await admin.quit();
  });
  afterEach(async () => {
    await Promise.all(limiters.splice(0).map((limiter) => limiter.close()));
    await Promise.all(prefixes.splice(0).map((prefix) => deleteRedisKeys(prefix)));
  });

  it('shares one budget between two instances (two processes), exactly', async () => {
    const prefix = newPrefix();
    const clock = new ManualClock();
    const [one, two] = [make(prefix, clock), make(prefix, clock)];
    const decisions = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? one : two).hit('apikey:1', windows)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(120);
    expect(await one.hit('apikey:1', windows)).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
    expect(await two.hit('apikey:1', windows)).toMatchObject({ allowed: false, retryAfterSeconds: 60 });
  });

  it('keeps one expiring counter per window, written only by allowed hits', async () => {
    const prefix = newPrefix();
    const limiter = make(prefix, new ManualClock());
    const one: RateWindow[] = [{ name: 'minute', limit: 1, windowMs: 60_000 }];
    await limiter.hit('ip:1', one);
    await limiter.hit('ip:1', one);
    const keys: string[] = [];
    // A full SCAN, since other suites share this Redis and one page may not reach our keys.
    let cursor = '0';
    do {
      const [next, page] = await admin.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      keys.push(...page);
      cursor = next;
    } while (cursor !== '0');
    expect(keys).toEqual([`${prefix}rl:{ip:1}:minute:${Date.UTC(2026, 0, 1)}`]);
    expect(await admin.get(keys[0]!)).toBe('1');
    const ttl = await admin.pttl(keys[0]!);
    expect(ttl).toBeGreaterThan(60_000);
    expect(ttl).toBeLessThanOrEqual(120_000);
  });

  it('refuses quickly with a retryable DEPENDENCY_UNAVAILABLE when Redis is unreachable', async () => {
    const limiter = new RedisRateLimiter({ redisUrl: 'redis://127.0.0.1:1', keyPrefix: 'unused:', clock: new ManualClock() });
    limiters.push(limiter);
    const started = Date.now();
    await expect(limiter.hit('k', windows)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE', retryable: true, kind: 'unavailable' });
    await expect(limiter.ping()).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('times out a Redis that accepts connections but never answers', async () => {
    const { createServer } = await import('node:net');
    const server = createServer(() => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const limiter = new RedisRateLimiter({
      redisUrl: `redis://127.0.0.1:${port}`,
      keyPrefix: 'unused:',
      clock: new ManualClock(),
      timeoutMs: 200,
    });
    limiters.push(limiter);
    const started = Date.now();
    try {
      await expect(limiter.hit('k', windows)).rejects.toMatchObject({ code: 'DEPENDENCY_UNAVAILABLE' });
      expect(Date.now() - started).toBeLessThan(2_000);
    } finally {
      await limiter.close();
      server.close();
    }
  });

  it('counts a reply that arrived while its own event loop was too busy to read it (no false "unavailable")', async () => {
    // Under CPU load a process can stall past the timeout with Redis's answer already in the
    // socket: the timer fires first in the loop, and Redis was blamed for our own lag.
    const limiter = new RedisRateLimiter({ redisUrl: TEST_REDIS_URL, keyPrefix: newPrefix(), clock: new ManualClock(), timeoutMs: 200 });
    limiters.push(limiter);
    await limiter.hit('k', windows); // connected, and the script loaded: the next hit is one round trip
    const pending = limiter.hit('k', windows);
    const busyUntil = Date.now() + 600;
    while (Date.now() < busyUntil) {
      // The event loop is blocked past the timeout; Redis answers meanwhile.
    }
    await expect(pending).resolves.toMatchObject({ allowed: true });
  });

  it('refuses to work once closed', async () => {
    const limiter = make(newPrefix(), new ManualClock());
    await limiter.close();
    await expect(limiter.hit('k', windows)).rejects.toMatchObject({ code: 'SHUTTING_DOWN' });
  });
});
