import { Router } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createTestApp } from '../support/http-harness.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function echoRouter(): Router {
  const router = Router();
  router.post('/echo', (req, res) => {
    req.log.info({ body: req.body }, 'echo');
    res.json({ body: req.body, requestId: res.locals.requestId, correlationId: res.locals.correlationId });
  });
  // Stands in for the MCP endpoint, which must see the raw body.
  router.post('/mcp/:publicId', (req, res) => {
    res.json({ parsed: req.body !== undefined });
  });
  return router;
}

describe('request and correlation ids', () => {
  const { app, logs } = createTestApp({ routers: [echoRouter()] });

  it('generates a request id and uses it as correlation id when none is sent', async () => {
    const res = await request(app).get('/healthz');
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.headers['x-correlation-id']).toBe(res.headers['x-request-id']);
  });

  it('honours valid incoming ids and exposes them to handlers and logs', async () => {
    const res = await request(app).post('/echo').set('X-Request-Id', 'client.req:42_A-b').set('X-Correlation-Id', 'flow-7').send({ a: 1 });
    expect(res.headers['x-request-id']).toBe('client.req:42_A-b');
    expect(res.headers['x-correlation-id']).toBe('flow-7');
    expect(res.body).toEqual({ body: { a: 1 }, requestId: 'client.req:42_A-b', correlationId: 'flow-7' });
    const echoLine = logs.map((l) => JSON.parse(l) as Record<string, unknown>).find((l) => l.msg === 'echo');
    expect(echoLine).toMatchObject({ requestId: 'client.req:42_A-b', correlationId: 'flow-7' });
  });

  it('replaces malformed or oversized ids', async () => {
    const tooLong = 'a'.repeat(129);
    const res = await request(app).get('/healthz').set('X-Request-Id', tooLong).set('X-Correlation-Id', 'bad id!');
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.headers['x-correlation-id']).toBe(res.headers['x-request-id']);
    const ok = await request(app).get('/healthz').set('X-Request-Id', 'a'.repeat(128));
    expect(ok.headers['x-request-id']).toBe('a'.repeat(128));
  });

  it('keeps a valid correlation id even when the request id is generated', async () => {
    const res = await request(app).get('/healthz').set('X-Correlation-Id', 'corr-9');
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.headers['x-correlation-id']).toBe('corr-9');
  });
});

describe('body parsing and unknown routes', () => {
  const { app } = createTestApp({ routers: [echoRouter()], bodyLimitBytes: 1024 });

  it('answers malformed JSON with the validation envelope', async () => {
    const res = await request(app).post('/echo').set('Content-Type', 'application/json').send('{"a": ');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: ['Malformed JSON body'], error: 'Bad Request' });
    expect(res.headers['x-request-id']).toMatch(UUID);
  });

  it('answers a body over the limit with 413', async () => {
    const res = await request(app)
      .post('/echo')
      .send({ blob: 'x'.repeat(2048) });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ statusCode: 413, message: 'Payload Too Large', error: 'Payload Too Large' });
  });

  it('accepts a body under the limit', async () => {
    const res = await request(app)
      .post('/echo')
      .send({ blob: 'x'.repeat(100) });
    expect(res.status).toBe(200);
  });

  it('leaves MCP bodies unparsed so MCP can answer in JSON-RPC terms', async () => {
    const res = await request(app).post('/mcp/pub-1').set('Content-Type', 'application/json').send('{not json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ parsed: false });
  });

  it('answers unknown routes with the NestJS-style 404 (path only, no query)', async () => {
    const res = await request(app).get('/api/nest/nothing-here?token=abc');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ statusCode: 404, message: 'Cannot GET /api/nest/nothing-here', error: 'Not Found' });
    const del = await request(app).delete('/echo');
    expect(del.body).toEqual({ statusCode: 404, message: 'Cannot DELETE /echo', error: 'Not Found' });
  });

  it('does not advertise express', async () => {
    const res = await request(app).get('/healthz');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});
