import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundBot } from '../support/bot-funding.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import {
  Client,
  evmWallet,
  scrapeMetrics,
  signInSolana,
  type solanaWallet,
  startTestService,
  type TestService,
} from '../support/test-service.js';

const SITE = 'https://shop.example.com';

/** The signature with its first character changed (to another one whatever it was: a random signature may start with either). */
const tampered = (signature: string) => `${signature.startsWith('x') ? 'y' : 'x'}${signature.slice(1)}`;
describe('chat widget routes (e2e)', () => {
  let svc: TestService;
  let owner: Client;
  let ownerWallet: ReturnType<typeof solanaWallet>;
  let ownerId: string;
  let botId: string;
  const clock = new ManualClock(Date.now());
  const page = (origin: string | undefined, token?: string) => ({
    ...(origin ? { origin } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  });
  const anon = () => new Client(svc.url);
  const start = async (origin = SITE) => (await anon().post(`/api/widget/${botId}/init`, {}, page(origin))).body.sessionToken as string;

  beforeAll(async () => {
    svc = await startTestService({ clock });
    owner = new Client(svc.url);
    const signedIn = await signInSolana(owner);
    ownerWallet = signedIn.wallet;
    ownerId = signedIn.user.id;
    botId = (await owner.post('/api/nest/bots', { name: 'Shop bot' })).body.id;
  });
  afterAll(() => svc.stop());

  it('the owner sets the allowed origins (normalized); others see 404; the routes say they are deprecated', async () => {
    expect((await owner.get(`/api/nest/bots/${botId}/widget-config`)).body).toEqual({ allowedOrigins: [], enabled: true });
    const set = await owner.put(`/api/nest/bots/${botId}/widget-config`, { allowedOrigins: ['HTTPS://Shop.Example.com:443/', SITE] });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ allowedOrigins: [SITE], enabled: true });
    expect(set.headers.get('deprecation')).toBe('true');
    const bad = await owner.put(`/api/nest/bots/${botId}/widget-config`, { allowedOrigins: ['https://shop.example.com/page'] });
    expect(bad.status).toBe(400);
    const stranger = new Client(svc.url);
    await signInSolana(stranger);
    expect((await stranger.get(`/api/nest/bots/${botId}/widget-config`)).status).toBe(404);
  });

  it('init: an allowed origin gets a one-hour session and CORS; any other origin 403 `Origin not allowed` without CORS', async () => {
    const ok = await anon().post(`/api/widget/${botId}/init`, {}, page(SITE));
    expect(ok.status).toBe(200);
    expect(ok.body.sessionToken).toMatch(/^wgs_/);
    expect(Date.parse(ok.body.expiresAt) - clock.now()).toBe(3600_000);
    expect(ok.headers.get('access-control-allow-origin')).toBe(SITE);
    for (const origin of ['http://shop.example.com', 'https://shop.example.com:8443', 'https://evil.example', undefined]) {
      const refused = await anon().post(`/api/widget/${botId}/init`, {}, page(origin));
      expect(refused.status).toBe(403);
      expect(refused.body).toMatchObject({ statusCode: 403, message: 'Origin not allowed' });
      expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    }
    expect((await anon().post('/api/widget/no-such-bot/init', {}, page(SITE))).status).toBe(403);
    // Preflight: allowed origin 204 with the methods and headers, others 403.
    const preflight = await anon().request('OPTIONS', `/api/widget/${botId}/chat`, undefined, {
      origin: SITE,
      'access-control-request-method': 'POST',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toContain('Authorization');
    const evil = await anon().request('OPTIONS', `/api/widget/${botId}/chat`, undefined, { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('chat needs the session, answers through the chat core, refuses trades of visitors, and the session expires after an hour', async () => {
    const token = await start();
    expect((await anon().post(`/api/widget/${botId}/chat`, { message: 'status' }, page(SITE))).status).toBe(401);
    // The token from another origin's page is refused.
    expect((await anon().post(`/api/widget/${botId}/chat`, { message: 'status' }, page('https://evil.example', token))).status).toBe(403);
    const asked = await anon().post(`/api/widget/${botId}/chat`, { message: 'status' }, page(SITE, token));
    expect(asked.status).toBe(200);
    expect(asked.body).toMatchObject({ intent: 'status', executed: false, reply: expect.stringContaining('Shop bot') });
    expect(asked.headers.get('x-ratelimit-limit')).toBe('30');
    const trade = await anon().post(`/api/widget/${botId}/chat`, { message: 'swap 10 USDC to SOL' }, page(SITE, token));
    expect(trade.body).toMatchObject({ intent: 'swap', executed: false, reply: 'Sign in as the owner to trade.' });
    expect((await anon().post(`/api/widget/${botId}/chat`, { message: '' }, page(SITE, token))).status).toBe(400);

    await clock.advance(3600_000);
    const expired = await anon().post(`/api/widget/${botId}/chat`, { message: 'status' }, page(SITE, token));
    expect(expired.status).toBe(401);
    expect(expired.body).toMatchObject({ message: 'Widget session expired', code: 'WIDGET_SESSION_EXPIRED' });
    expect(expired.headers.get('access-control-allow-origin')).toBe(SITE);
    // The owner's console session ended with the hour too.
    await signInSolana(owner, ownerWallet);
  });

  it("a session's chat and events are catalog operations: audited as the widget session, and off with the chat family", async () => {
    const token = await start();
    const asked = await anon().post(`/api/widget/${botId}/chat`, { message: 'status' }, page(SITE, token));
    expect(asked.status).toBe(200);
    await svc.service.operations.audit.flush();
    const entries = (await svc.service.operations.audit.list(`bot:${botId}`, { limit: 200 })).items;
    expect(entries.find((entry) => entry.operation === 'widget_chat')).toMatchObject({
      surface: 'widget',
      principal: { type: 'widget-session', id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) },
      outcome: 'ok',
    });
    const catalog = (body: unknown) =>
      fetch(`${svc.url}/api/nest/ops/catalog`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${svc.opsToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await catalog({ disabledFamilies: ['chat'] })).status).toBe(200);
    try {
      const off = await anon().post(`/api/widget/${botId}/chat`, { message: 'status' }, page(SITE, token));
      expect(off.status).toBe(404);
    } finally {
      expect((await catalog({ disabledFamilies: [] })).status).toBe(200);
    }
    expect((await anon().post(`/api/widget/${botId}/chat`, { message: 'status' }, page(SITE, token))).status).toBe(200);
  });

  it('30 requests a minute per session, then 429 with Retry-After', async () => {
    const token = await start();
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++)
      statuses.push((await anon().post(`/api/widget/${botId}/client-event`, { type: 'open' }, page(SITE, token))).status);
    expect(statuses).toEqual(Array(30).fill(202));
    const last = await anon().post(`/api/widget/${botId}/client-event`, { type: 'open' }, page(SITE, token));
    expect(last.status).toBe(429);
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another session has its own budget.
    expect((await anon().post(`/api/widget/${botId}/client-event`, { type: 'close' }, page(SITE, await start()))).status).toBe(202);
  });

  it('client events are validated, kept for the owner (newest first) and counted in /metrics', async () => {
    const token = await start();
    const bad = await anon().post(`/api/widget/${botId}/client-event`, { type: 'clicked' }, page(SITE, token));
    expect(bad.status).toBe(400);
    const long = await anon().post(`/api/widget/${botId}/client-event`, { type: 'error', detail: 'x'.repeat(201) }, page(SITE, token));
    expect(long.status).toBe(400);
    await anon().post(`/api/widget/${botId}/client-event`, { type: 'error', detail: 'boom' }, page(SITE, token));
    const events = await owner.get(`/api/nest/bots/${botId}/widget-events?limit=1`);
    expect(events.body.events).toEqual([
      { type: 'error', detail: 'boom', session: expect.stringMatching(/^widget-/), origin: SITE, at: new Date(clock.now()).toISOString() },
    ]);
    const metrics = await scrapeMetrics(svc);
    expect(metrics).toMatch(/widget_client_events_total\{type="error"\} [1-9]/);
    expect(metrics).toMatch(/widget_sessions_total\{outcome="refused"\} [1-9]/);
  });

  it('the owner signs in inside the widget (SIWS or SIWE); only then do trades run, through the safety path', async () => {
    await owner.patch(`/api/nest/bots/${botId}`, { tradingEnabled: true });
    await fundBot(svc.service, ownerId, botId);
    const token = await start();
    // Another wallet is refused and the session stays a visitor's.
    const other = evmWallet();
    const otherChallenge = await anon().post(
      `/api/widget/${botId}/sign-in/nonce`,
      { chain: 'evm', walletAddress: other.address },
      page(SITE, token),
    );
    // The message names the page's origin (the shop the wallet sees), not the service's agents.test.
    expect(otherChallenge.body.message).toMatch(/^shop\.example\.com wants you to sign in with your Ethereum account:\n/);
    expect(otherChallenge.body.message).toContain(`\nURI: ${SITE}\n`);
    const refused = await anon().post(
      `/api/widget/${botId}/sign-in`,
      { message: otherChallenge.body.message, signature: await other.sign(otherChallenge.body.message) },
      page(SITE, token),
    );
    expect(refused).toMatchObject({ status: 403, body: { message: 'This wallet does not own the bot' } });

    const challenge = await anon().post(
      `/api/widget/${botId}/sign-in/nonce`,
      { chain: 'solana', walletAddress: ownerWallet.address },
      page(SITE, token),
    );
    // Signed for the shop's page: no operator session from it (its nonce stays for the widget).
    const operator = anon();
    await operator.refreshCsrf();
    const shopAtConsole = await operator.post('/api/nest/auth/login', {
      message: challenge.body.message,
      signature: ownerWallet.sign(challenge.body.message),
      walletAddress: ownerWallet.address,
    });
    expect(shopAtConsole).toMatchObject({ status: 401, body: { message: 'Unauthorized' } });
    // Signed for the service's console: no widget sign-in on the shop's page.
    const consoleChallenge = await operator.post('/api/nest/auth/nonce', { walletAddress: ownerWallet.address });
    const consoleAtShop = await anon().post(
      `/api/widget/${botId}/sign-in`,
      { message: consoleChallenge.body.message, signature: ownerWallet.sign(consoleChallenge.body.message) },
      page(SITE, token),
    );
    expect(consoleAtShop).toMatchObject({ status: 401, body: { message: 'Unauthorized' } });
    const signed = await anon().post(
      `/api/widget/${botId}/sign-in`,
      { message: challenge.body.message, signature: tampered(ownerWallet.sign(challenge.body.message)) },
      page(SITE, token),
    );
    expect(signed.status).toBe(401);
    const ok = await anon().post(
      `/api/widget/${botId}/sign-in`,
      { message: challenge.body.message, signature: ownerWallet.sign(challenge.body.message) },
      page(SITE, token),
    );
    expect(ok).toMatchObject({ status: 200, body: { owner: true, walletAddress: ownerWallet.address } });
    // The nonce is spent: the same signature again is refused.
    expect(
      (
        await anon().post(
          `/api/widget/${botId}/sign-in`,
          { message: challenge.body.message, signature: ownerWallet.sign(challenge.body.message) },
          page(SITE, token),
        )
      ).status,
    ).toBe(401);
    const trade = await anon().post(`/api/widget/${botId}/chat`, { message: 'swap 10 USDC to SOL', message_id: 'w1' }, page(SITE, token));
    expect(trade.body).toMatchObject({ intent: 'swap', executed: true, order: { status: 'filled', channel: 'widget', botId } });
    const fees = await owner.get(`/api/nest/bots/${botId}/trading/fees/channels`);
    expect(fees.body.channels.find((row: { channel: string }) => row.channel === 'widget')).toMatchObject({ orders: 1 });
  });

  it('serves the script as text/javascript with an ETag, cacheable, and 304 on revalidation', async () => {
    const script = await fetch(`${svc.url}/api/widget/${botId}/script.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = script.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    expect((await script.text()).length).toBeGreaterThan(1000);
    const again = await fetch(`${svc.url}/api/widget/${botId}/script.js`, {
      headers: { 'if-none-match': etag!, 'cache-control': 'max-age=0' },
    });
    expect(again.status).toBe(304);
  });
});
