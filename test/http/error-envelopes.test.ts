import { Router } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { providerUnavailable } from '../../adapters/resilience/provider-breaker.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { parseBody, validate } from '../../src/http/validate.js';
import { createTestApp } from '../support/http-harness.js';

const CreateThing = z.object({ name: z.string().min(1), amount: z.number().int().positive() });

/** A router whose routes fail in every way a feature route can. */
function failingRouter(): Router {
  const router = Router();
  router.get('/t/standard', () => {
    throw AppError.forbidden('Invalid CSRF token');
  });
  router.get('/t/domain', () => {
    throw AppError.conflict('Agent already claimed');
  });
  router.get('/t/validation', () => {
    throw AppError.validation(['name: Required']);
  });
  router.get('/t/soft', () => {
    throw new AppError('PROVIDER_UNAVAILABLE', 'Trading servisi su anda kullanilamiyor.', {
      kind: 'declined',
      envelope: 'canonical',
      retryable: true,
    });
  });
  router.get('/t/provider', () => {
    throw providerUnavailable('jupiter', 'HTTP 502');
  });
  router.get('/t/rate-limited', () => {
    throw new AppError('RATE_LIMITED', 'Too Many Requests', { envelope: 'standard', retryAfterSeconds: 17.2 });
  });
  router.get('/t/zod', () => {
    CreateThing.parse({ amount: -1 });
  });
  router.post('/t/parse', (req, res) => {
    res.status(201).json(parseBody(CreateThing, req));
  });
  router.get('/t/boom', async () => {
    await Promise.resolve();
    throw new Error('db password=hunter2 at /srv/app/secret.ts');
  });
  router.get('/t/throw-string', () => {
    throw 'plain string thrown';
  });
  return router;
}

describe('error envelopes', () => {
  const { app, logs } = createTestApp({ routers: [failingRouter()] });

  it('renders the standard envelope with the reason phrase', async () => {
    const res = await request(app).get('/t/standard');
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ statusCode: 403, message: 'Invalid CSRF token', error: 'Forbidden' });
  });

  it('renders the domain envelope with code', async () => {
    const res = await request(app).get('/t/domain');
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      statusCode: 409,
      message: 'Agent already claimed',
      error: 'Conflict',
      code: 'RESOURCE_CONFLICT',
    });
  });

  it('renders the validation envelope with a message array', async () => {
    const res = await request(app).get('/t/validation');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: ['name: Required'], error: 'Bad Request' });
  });

  it('renders a soft error as the canonical failure with status 200 and request ids', async () => {
    const res = await request(app).get('/t/soft').set('X-Request-Id', 'req-1').set('X-Correlation-Id', 'corr-1');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: false,
      error: {
        code: 'PROVIDER_UNAVAILABLE',
        message: 'Trading servisi su anda kullanilamiyor.',
        details: { retryable: true },
      },
      meta: { requestId: 'req-1', correlationId: 'corr-1' },
    });
  });

  it('renders a provider outage (PROVIDER_UNAVAILABLE) in the canonical envelope, as 7.1 lists it, with 503', async () => {
    const res = await request(app).get('/t/provider').set('X-Request-Id', 'req-2');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      success: false,
      error: { code: 'PROVIDER_UNAVAILABLE', message: 'Provider unavailable: jupiter (HTTP 502)', details: { retryable: true } },
      meta: { requestId: 'req-2', correlationId: 'req-2' },
    });
  });

  it('sets Retry-After (whole seconds, rounded up) from retryAfterSeconds', async () => {
    const res = await request(app).get('/t/rate-limited');
    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('18');
    expect(res.body).toEqual({ statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' });
  });

  it('maps a thrown ZodError to the validation envelope, one message per field', async () => {
    const res = await request(app).get('/t/zod');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.message).toHaveLength(2);
    expect(res.body.message[0]).toMatch(/^name /);
    expect(res.body.message[1]).toMatch(/^amount: Too small/);
  });

  it('parseBody turns zod failures into validation errors and passes valid bodies through', async () => {
    const bad = await request(app).post('/t/parse').send({ amount: 1.5 });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      statusCode: 400,
      message: ['name is required', 'amount must be int'],
      error: 'Bad Request',
    });
    const good = await request(app).post('/t/parse').send({ name: 'x', amount: 2, extra: true });
    expect(good.status).toBe(201);
    expect(good.body).toEqual({ name: 'x', amount: 2 });
  });

  it('answers an unexpected error with a bare 500 and logs the details', async () => {
    const res = await request(app).get('/t/boom').set('X-Request-Id', 'boom-1');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' });
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('secret.ts');
    const logged = logs.map((l) => JSON.parse(l) as Record<string, unknown>);
    const line = logged.find((l) => l.msg === 'unhandled error');
    expect(line).toMatchObject({ requestId: 'boom-1', level: 50 });
    expect(JSON.stringify(line)).toContain('hunter2');
  });

  it('treats a thrown non-Error as a 500 too', async () => {
    const res = await request(app).get('/t/throw-string');
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('plain string');
  });

  it('answers client errors of express itself with their status and no internals', async () => {
    const res = await request(app).get('/api/nest/ops/actors/%E0%A4%A').set('Authorization', 'Bearer ops-test-token-0123456789');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: 'Bad Request', error: 'Bad Request' });
  });
});

describe('validate()', () => {
  it('returns parsed data or throws AppError.validation', () => {
    expect(validate(z.object({ n: z.coerce.number() }), { n: '4' })).toEqual({ n: 4 });
    try {
      validate(z.object({ n: z.number() }), {});
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(AppError);
      expect((err as AppError).envelope).toBe('validation');
      expect((err as AppError).messages).toEqual(['n is required']);
    }
  });

  it('says a missing field of fixed values is required, and a wrong value what it may be', () => {
    const schema = z.object({ chain: z.enum(['solana', 'base']), kind: z.literal('swap') });
    expect(() => validate(schema, {})).toThrow(expect.objectContaining({ messages: ['chain is required', 'kind is required'] }));
    expect(() => validate(schema, { chain: 'tron', kind: 'swap' })).toThrow(
      expect.objectContaining({ messages: ['chain: Invalid option: expected one of "solana"|"base"'] }),
    );
  });
});
