import { Router } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/observability/logger.js';
import { formatPrettyLine } from '../../src/observability/pretty-stream.js';
import { createTestApp } from '../support/http-harness.js';

const SECRET = 'SUPERSECRET-4f1c';

function capture(): { lines: string[]; write: (line: string) => void } {
  const lines: string[] = [];
  return { lines, write: (line) => void lines.push(line) };
}

describe('logger redaction', () => {
  it('redacts credential fields at the top level and nested', () => {
    const sink = capture();
    const logger = createLogger({ level: 'info', destination: sink });
    logger.info(
      {
        secret: SECRET,
        token: SECRET,
        req: { headers: { authorization: `Bearer ${SECRET}`, cookie: `sid=${SECRET}`, 'x-api-key': SECRET, host: 'h' } },
        res: { headers: { 'set-cookie': [`sid=${SECRET}`] } },
        body: { name: 'key-1', stepUpToken: SECRET, password: SECRET, apiKey: SECRET },
        session: { accessToken: SECRET, refreshToken: SECRET, user: { id: 'u1' } },
        wallet: { custody: { privateKey: SECRET, key: SECRET } },
        items: [{ token: SECRET }],
      },
      'login',
    );
    expect(sink.lines).toHaveLength(1);
    const line = sink.lines[0] ?? '';
    expect(line).not.toContain(SECRET);
    const record = JSON.parse(line) as Record<string, any>;
    expect(record.req.headers.authorization).toBe('[Redacted]');
    expect(record.req.headers.host).toBe('h');
    expect(record.body.name).toBe('key-1');
    expect(record.session.user.id).toBe('u1');
    expect(record.wallet.custody.privateKey).toBe('[Redacted]');
  });

  it('redacts request headers in the access log of the HTTP app', async () => {
    const router = Router();
    router.post('/login', (req, res) => {
      req.log.info({ body: req.body }, 'login body');
      res.setHeader('Set-Cookie', `sid=${SECRET}; HttpOnly`);
      res.json({ accessToken: 'not logged' });
    });
    const { app, logs } = createTestApp({ routers: [router] });
    await request(app)
      .post('/login')
      .set('Authorization', `Bearer ${SECRET}`)
      .set('Cookie', `sid=${SECRET}`)
      .send({ walletAddress: 'w', signature: 's', refreshToken: SECRET });
    const all = logs.join('');
    expect(all).toContain('request completed');
    expect(all).toContain('login body');
    expect(all).not.toContain(SECRET);
  });

  it('redacts at any depth and in any letter case, without touching the logged object', () => {
    const sink = capture();
    const logger = createLogger({ level: 'info', destination: sink });
    const deep = { a: { b: { c: { d: { e: { f: { Authorization: SECRET, PrivateKey: SECRET, note: 'kept' } } } } } } };
    logger.child({ token: SECRET }).info(deep, 'deep');
    const line = sink.lines[0] ?? '';
    expect(line).not.toContain(SECRET);
    expect(line).toContain('kept');
    expect(deep.a.b.c.d.e.f.Authorization).toBe(SECRET);
  });

  it('honours the level', () => {
    const sink = capture();
    const logger = createLogger({ level: 'warn', destination: sink });
    logger.info('hidden');
    logger.warn('shown');
    expect(sink.lines).toHaveLength(1);
  });
});

describe('pretty output', () => {
  it('formats a JSON line for a terminal', () => {
    const out = formatPrettyLine('{"level":40,"time":"2025-01-01T12:34:56.789Z","msg":"slow","ms":12}\n');
    expect(out).toBe('12:34:56.789 WARN  slow ms=12\n');
  });
});
