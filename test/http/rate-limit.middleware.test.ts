import { Router } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { InProcessRateLimiter } from '../../adapters/rate-limit/in-process-rate-limiter.adapter.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { clientIp, createRateLimitMiddleware } from '../../src/http/rate-limit.middleware.js';
import type { RateLimiterPort, RateWindow } from '../../kernel/ports/rate-limiter.port.js';
import { createTestApp } from '../support/http-harness.js';

const windows: RateWindow[] = [{ name: 'minute', limit: 3, windowMs: 60_000 }];

/** `/limited/*` is counted per client IP; `/open` is not limited at all. */
function limitedApp(limiter: RateLimiterPort) {
  const router = Router();
  router.use(
    createRateLimitMiddleware({
      limiter,
      resolve: (req) => (req.path.startsWith('/limited') ? { key: `ip:${clientIp(req)}`, windows } : null),
    }),
  );
  router.get('/limited/ok', (_req, res) => {
    res.json({ ok: true });
  });
  router.get('/limited/fails', () => {
    throw AppError.conflict('Agent already claimed');
  });
  router.get('/open', (_req, res) => {
    res.json({ open: true });
  });
  router.get('/ip', (req, res) => {
    res.json({ ip: clientIp(req) });
  });
  return createTestApp({ routers: [router] }).app;
}

function rateHeaders(res: request.Response): (string | undefined)[] {
  return [res.headers['x-ratelimit-limit'], res.headers['x-ratelimit-remaining'], res.headers['x-ratelimit-reset']];
}

describe('rate limit middleware', () => {
  it('puts the three headers on every limited response, including errors', async () => {
    const clock = new ManualClock();
    await clock.advance(20_000);
    const app = limitedApp(new InProcessRateLimiter({ clock }));
    const first = await request(app).get('/limited/ok');
    expect(first.status).toBe(200);
    expect(rateHeaders(first)).toEqual(['3', '2', '40']);
    const failed = await request(app).get('/limited/fails');
    expect(failed.status).toBe(409);
    expect(rateHeaders(failed)).toEqual(['3', '1', '40']);
    const missing = await request(app).get('/limited/nothing-here');
    expect(missing.status).toBe(404);
    expect(rateHeaders(missing)).toEqual(['3', '0', '40']);
  });

  it('answers the hit over the limit with 429, the standard envelope, Retry-After and the headers', async () => {
    const clock = new ManualClock();
    await clock.advance(59_500);
    const app = limitedApp(new InProcessRateLimiter({ clock }));
    for (let i = 0; i < 3; i += 1) expect((await request(app).get('/limited/ok')).status).toBe(200);
    const res = await request(app).get('/limited/ok');
    expect(res.status).toBe(429);
    expect(res.body).toEqual({ statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' });
    expect(res.headers['retry-after']).toBe('1');
    expect(rateHeaders(res)).toEqual(['3', '0', '1']);
    // Once the window resets the caller is served again.
    await clock.advance(500);
    const again = await request(app).get('/limited/ok');
    expect(again.status).toBe(200);
    expect(rateHeaders(again)).toEqual(['3', '2', '60']);
  });

  it('leaves unlimited routes alone', async () => {
    const app = limitedApp(new InProcessRateLimiter({ clock: new ManualClock() }));
    for (let i = 0; i < 5; i += 1) {
      const res = await request(app).get('/open');
      expect(res.status).toBe(200);
      expect(res.headers['x-ratelimit-limit']).toBeUndefined();
    }
  });

  it('refuses with 503 when the limiter fails, never letting the request through', async () => {
    let reached = false;
    const broken: RateLimiterPort = {
      hit: async () => {
        throw new AppError('DEPENDENCY_UNAVAILABLE', 'The rate limiter (Redis) is unavailable');
      },
      ping: async () => undefined,
      close: async () => undefined,
    };
    const router = Router();
    router.use(createRateLimitMiddleware({ limiter: broken, resolve: () => ({ key: 'k', windows }) }));
    router.get('/limited/ok', (_req, res) => {
      reached = true;
      res.json({ ok: true });
    });
    const res = await request(createTestApp({ routers: [router] }).app).get('/limited/ok');
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ statusCode: 503, error: 'Service Unavailable', code: 'DEPENDENCY_UNAVAILABLE' });
    expect(reached).toBe(false);
  });
});

describe('clientIp', () => {
  it('unwraps IPv4-mapped addresses and ignores X-Forwarded-For without trust proxy', async () => {
    const app = limitedApp(new InProcessRateLimiter({ clock: new ManualClock() }));
    const res = await request(app).get('/ip').set('X-Forwarded-For', '203.0.113.9');
    expect(res.body).toEqual({ ip: '127.0.0.1' });
  });

  it('uses the forwarded address behind a trusted proxy and groups IPv6 by /64', async () => {
    const app = limitedApp(new InProcessRateLimiter({ clock: new ManualClock() }));
    app.set('trust proxy', 1);
    const ip = async (forwarded: string) => (await request(app).get('/ip').set('X-Forwarded-For', forwarded)).body.ip;
    expect(await ip('203.0.113.9')).toBe('203.0.113.9');
    expect(await ip('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(await ip('2001:0db8:0000:0001:ffff:0:0:9')).toBe('2001:db8:0:1::/64');
    expect(await ip('::1')).toBe('0:0:0:0::/64');
  });
});
