import { Router } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp } from './http-harness.js';

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

function routes(): Router {
  const router = Router();
  router.post('/api/things', (_req, res) => void res.status(201).json({ id: 't1' }));
  router.get('/api/things', (_req, res) => void res.json({ items: [] }));
  router.post('/api/refused', (_req, res) => void res.status(409).json({ statusCode: 409, message: 'Conflict', error: 'Conflict' }));
  router.post('/api/invoked', (_req, res) => {
    res.locals.answeredDurable = true; // as the operation routes do: the invoker settled already
    res.json({ ok: true });
  });
  return router;
}

describe('mutating answers wait until what they wrote is durable', () => {
  it('holds a POST answer until the flush is done, then sends it unchanged', async () => {
    const flush = heldFlush();
    const { app } = createTestApp({ routers: [routes()], settled: flush.settled });
    let answered = false;
    const pending = request(app).post('/api/things').send({}).then((res) => ((answered = true), res));
    const held = await flush.next();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(answered).toBe(false);
    held.resolve();
    const res = await pending;
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: 't1' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('does not hold reads, refusals, or calls the invoker already settled', async () => {
    const flush = heldFlush();
    const { app } = createTestApp({ routers: [routes()], settled: flush.settled });
    expect((await request(app).get('/api/things')).status).toBe(200);
    expect((await request(app).post('/api/invoked').send({})).body).toEqual({ ok: true });
    // A refusal changed nothing worth holding it for.
    expect((await request(app).post('/api/refused').send({})).status).toBe(409);
    expect(flush.waiting).toHaveLength(0);
  });

  it('a store that cannot flush turns the answer into a 500 envelope that reveals nothing, with the request id', async () => {
    const flush = heldFlush();
    const { app, logs } = createTestApp({ routers: [routes()], settled: flush.settled });
    const pending = request(app).post('/api/things').set('X-Request-Id', 'req-durable-1').send({}).then((res) => res); // sent now
    (await flush.next()).reject(new Error('EIO: disk gone'));
    const res = await pending;
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' });
    expect(res.headers['x-request-id']).toBe('req-durable-1');
    expect(JSON.stringify(res.body)).not.toContain('t1');
    expect(logs.some((line) => line.includes('answer withheld: the store did not flush') && line.includes('EIO'))).toBe(true);
  });
});
