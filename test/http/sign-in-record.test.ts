import { Router } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { SIGN_IN_PREFIX, signInRecordMiddleware } from '../../src/http/auth/sign-in-record.middleware.js';
import { createLogger } from '../../src/observability/logger.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { createTestApp } from '../support/http-harness.js';

/** A `settled` the test completes by hand, counting how often it was asked. */
function heldFlush() {
  const waiting: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  return {
    waiting,
    settled: () => new Promise<void>((resolve, reject) => waiting.push({ resolve, reject })),
    async next() {
      while (waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
      return waiting.shift()!;
    },
  };
}

/** Sign-in-like routes behind the recorder, as the service mounts it; `logs` and `audit` collect what it wrote. */
function app(settled: () => Promise<void>) {
  const logs: string[] = [];
  const audit: AuditEntry[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(line) } });
  const router = Router();
  router.use(
    SIGN_IN_PREFIX,
    signInRecordMiddleware({ audit: { record: (entry) => audit.push(entry) }, clock: new ManualClock(0), settled, logger }),
  );
  router.post('/api/nest/auth/things', (_req, res) => void res.status(201).json({ id: 't1' }));
  router.get('/api/nest/auth/things', (_req, res) => void res.json({ items: [] }));
  router.post(
    '/api/nest/auth/refused',
    (_req, res) => void res.status(409).json({ statusCode: 409, message: 'Conflict', error: 'Conflict' }),
  );
  // Read-only: audited, never held.
  router.post('/api/nest/auth/verify', (_req, res) => void res.json({ valid: true }));
  return { app: createTestApp({ routers: [router] }).app, logs, audit };
}

describe('sign-in answers wait until what they wrote is durable, and are audited', () => {
  it('holds a POST answer until the flush is done, then sends it unchanged', async () => {
    const flush = heldFlush();
    const { app: served, audit } = app(flush.settled);
    let answered = false;
    const pending = request(served)
      .post('/api/nest/auth/things')
      .send({})
      .then((res) => {
        answered = true;
        return res;
      });
    const held = await flush.next();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    held.resolve();
    const res = await pending;
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: 't1' });
    expect(res.headers['cache-control']).toBe('no-store');
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(audit).toEqual([
      expect.objectContaining({
        operation: 'POST /api/nest/auth/things',
        outcome: 'ok',
        principal: { type: 'anonymous', id: expect.any(String) },
      }),
    ]);
  });

  it('does not hold reads, read-only POSTs (verify) or refusals', async () => {
    const flush = heldFlush();
    const { app: served } = app(flush.settled);
    expect((await request(served).get('/api/nest/auth/things')).status).toBe(200);
    expect((await request(served).post('/api/nest/auth/verify').send({})).body).toEqual({ valid: true });
    // A refusal changed nothing worth holding it for.
    expect((await request(served).post('/api/nest/auth/refused').send({})).status).toBe(409);
    expect(flush.waiting).toHaveLength(0);
  });

  it('a store that cannot flush turns the answer into a 500 envelope that reveals nothing, with the request id', async () => {
    const flush = heldFlush();
    const { app: served, logs } = app(flush.settled);
    const pending = request(served)
      .post('/api/nest/auth/things')
      .set('X-Request-Id', 'req-durable-1')
      .send({})
      .then((res) => res); // sent now
    (await flush.next()).reject(new Error('EIO: disk gone'));
    const res = await pending;
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' });
    expect(res.headers['x-request-id']).toBe('req-durable-1');
    expect(JSON.stringify(res.body)).not.toContain('t1');
    expect(logs.some((line) => line.includes('answer withheld: the store did not flush') && line.includes('EIO'))).toBe(true);
  });
});
