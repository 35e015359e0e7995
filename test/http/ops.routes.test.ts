import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { bearerToken, secretsEqual } from '../../src/http/ops-auth.middleware.js';
import { OPS_TOKEN, actorView, createTestApp } from '../support/http-harness.js';

const AUTH = `Bearer ${OPS_TOKEN}`;
const UNAUTHORIZED = { statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' };

describe('ops inspection routes: auth', () => {
  const { app, inspector } = createTestApp();

  it.each([
    ['missing', undefined],
    ['wrong token', 'Bearer nope'],
    ['token with a suffix', `${AUTH}x`],
    ['wrong scheme', `Basic ${OPS_TOKEN}`],
    ['empty bearer', 'Bearer '],
  ])('answers 401 when the token is %s', async (_name, header) => {
    const req = request(app).get('/api/nest/ops/actors/order');
    const res = await (header === undefined ? req : req.set('Authorization', header));
    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
    expect(inspector.calls).toHaveLength(0);
  });

  it('guards unknown ops paths too', async () => {
    const res = await request(app).get('/api/nest/ops/whatever');
    expect(res.status).toBe(401);
  });

  it('accepts the scheme in any case', async () => {
    const res = await request(app).get('/api/nest/ops/actors/order').set('Authorization', `bearer ${OPS_TOKEN}`);
    expect(res.status).toBe(200);
  });
});

describe('ops inspection routes: types', () => {
  it('lists the machine types the runtime hosts', async () => {
    const { app } = createTestApp();
    const res = await request(app).get('/api/nest/ops/actors').set('Authorization', AUTH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ types: ['order', 'agent'] });
  });
});

describe('ops inspection routes: list', () => {
  it('passes defaults and returns the page as is', async () => {
    const { app, inspector } = createTestApp();
    const res = await request(app).get('/api/nest/ops/actors/order').set('Authorization', AUTH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [actorView('o-1')], nextCursor: 'cursor-2' });
    expect(inspector.calls).toEqual([{ method: 'list', args: ['order', { limit: 50 }] }]);
  });

  it('passes state, limit and cursor through', async () => {
    const { app, inspector } = createTestApp();
    inspector.listPage = { items: [] };
    const res = await request(app)
      .get('/api/nest/ops/actors/order')
      .query({ state: 'pending_approval', limit: '200', cursor: 'abc' })
      .set('Authorization', AUTH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [] });
    expect(inspector.calls[0]?.args).toEqual(['order', { state: 'pending_approval', limit: 200, cursor: 'abc' }]);
  });

  it.each([
    ['limit=201', 'limit: Too big'],
    ['limit=0', 'limit: Too small'],
    ['limit=abc', 'limit must be number'],
    ['limit=1.5', 'limit must be int'],
    ['state=', 'state: Too small'],
    ['state=a&state=b', 'state must be string'],
    ['stat=failed', 'stat is not a known field'],
  ])('rejects %s with the validation envelope', async (query, message) => {
    const { app, inspector } = createTestApp();
    const res = await request(app).get(`/api/nest/ops/actors/order?${query}`).set('Authorization', AUTH);
    expect(res.status).toBe(400);
    expect(res.body.statusCode).toBe(400);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.message[0]).toContain(message);
    expect(inspector.calls).toHaveLength(0);
  });

  it('refuses query parameters the type list, an actor and its journal do not take', async () => {
    const { app, inspector } = createTestApp();
    for (const path of ['/api/nest/ops/actors?x=1', '/api/nest/ops/actors/order/o-1?x=1', '/api/nest/ops/actors/order/o-1/journal?x=1']) {
      const res = await request(app).get(path).set('Authorization', AUTH);
      expect(res.status, path).toBe(400);
      expect(res.body.message, path).toEqual(['x is not a known field']);
    }
    expect(inspector.calls).toHaveLength(0);
  });

  it('answers 404 for an unknown type', async () => {
    const { app } = createTestApp();
    const res = await request(app).get('/api/nest/ops/actors/spaceship').set('Authorization', AUTH);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, message: 'Unknown actor type: spaceship', error: 'Not Found' });
  });
});

describe('ops inspection routes: one actor and its journal', () => {
  it('returns the actor view, or 404 Actor not found', async () => {
    const { app } = createTestApp();
    const found = await request(app).get('/api/nest/ops/actors/order/o-1').set('Authorization', AUTH);
    expect(found.status).toBe(200);
    expect(found.body).toEqual(actorView('o-1'));
    const missing = await request(app).get('/api/nest/ops/actors/order/o-404').set('Authorization', AUTH);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ statusCode: 404, message: 'Actor not found', error: 'Not Found' });
    const badType = await request(app).get('/api/nest/ops/actors/nope/o-1').set('Authorization', AUTH);
    expect(badType.status).toBe(404);
  });

  it('passes afterSeq and limit to the journal and returns the page', async () => {
    const { app, inspector } = createTestApp();
    const res = await request(app).get('/api/nest/ops/actors/order/o-1/journal?afterSeq=10&limit=5').set('Authorization', AUTH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(inspector.journalPage);
    expect(inspector.calls).toEqual([{ method: 'journal', args: ['order', 'o-1', { afterSeq: 10, limit: 5 }] }]);
  });

  it('validates journal query parameters', async () => {
    const { app, inspector } = createTestApp();
    const res = await request(app).get('/api/nest/ops/actors/order/o-1/journal?afterSeq=-1').set('Authorization', AUTH);
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(['afterSeq: Too small: expected number to be >=0']);
    expect(inspector.calls).toHaveLength(0);
  });
});

describe("ops inspection routes: a machine type's statechart", () => {
  it('answers the chart of a known type, 404 for another, 401 without the token', async () => {
    const { app, inspector } = createTestApp();
    const chart = await request(app).get('/api/nest/ops/machines/order').set('Authorization', AUTH);
    expect(chart.status).toBe(200);
    expect(chart.body).toEqual(inspector.machine('order'));
    const unknown = await request(app).get('/api/nest/ops/machines/spaceship').set('Authorization', AUTH);
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ statusCode: 404, message: 'Unknown actor type: spaceship', error: 'Not Found' });
    const stranger = await request(app).get('/api/nest/ops/machines/order');
    expect(stranger.status).toBe(401);
    const query = await request(app).get('/api/nest/ops/machines/order?x=1').set('Authorization', AUTH);
    expect(query.status).toBe(400);
    expect(query.body.message).toEqual(['x is not a known field']);
  });
});

describe('bearer helpers', () => {
  it('parses bearer tokens and compares secrets', () => {
    expect(bearerToken('Bearer abc')).toBe('abc');
    expect(bearerToken('Bearer a b')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
    expect(secretsEqual('abc', 'abc')).toBe(true);
    expect(secretsEqual('abc', 'abcd')).toBe(false);
  });
});
