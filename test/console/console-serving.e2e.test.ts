/**
 * The service serves the operator console: its pages with `no-cache`, its hashed
 * assets `immutable`, `/hub/api-keys` redirecting to the agents page (the key management flow), and the
 * 404 envelope of API paths untouched.
 */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
beforeAll(async () => {
  svc = await startTestService();
});
afterAll(async () => svc.stop());

const get = (path: string) => fetch(`${svc.url}${path}`, { redirect: 'manual' });

describe('console serving', () => {
  it('answers its pages with index.html, revalidated on every load, under a CSP that allows its own scripts only', async () => {
    for (const path of [
      '/',
      '/agents',
      '/agents/agt_123',
      '/agents/agt_123/trading',
      '/agents/agt_123/portfolio',
      '/agents/agt_123/dca',
      '/ops',
      // The OAuth consent page: never framed (a framed consent could be clicked through by the framing page).
      '/oauth/consent?authorization_id=az_1',
    ]) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.headers.get('cache-control')).toBe('no-cache');
      expect(answer.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(await answer.text()).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
    }
  });

  it('serves hashed assets as immutable', async () => {
    const asset = readdirSync(new URL('../../console/dist/assets', import.meta.url)).find((name) => name.endsWith('.js'));
    const answer = await get(`/assets/${asset}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(answer.headers.get('content-type')).toMatch(/javascript/);
  });

  it('redirects /hub/api-keys to the agents page', async () => {
    const answer = await get('/hub/api-keys');
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe('/agents');
  });

  it('serves its icon at /favicon.ico (asked for without reading the page) and /favicon.svg, which the page names', async () => {
    for (const path of ['/favicon.ico', '/favicon.svg']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(await answer.text()).toMatch(/^<svg /);
    }
    expect(await (await get('/agents')).text()).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml" />');
  });

  it('leaves the 404 envelopes of API paths and unknown assets as they were', async () => {
    const api = await get('/api/nest/nothing-here');
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ statusCode: 404, message: 'Cannot GET /api/nest/nothing-here', error: 'Not Found' });
    const asset = await get('/assets/missing-abc.js');
    expect(asset.status).toBe(404);
    expect(asset.headers.get('content-type')).toMatch(/json/);
    const page = await get('/agents/a/b');
    expect(page.status).toBe(404);
  });
});
