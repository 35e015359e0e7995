import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import {
  Client,
  evmWallet,
  PUBLIC_URL,
  scrapeMetrics,
  signInSolana,
  solanaWallet,
  startTestService,
  type TestService,
} from '../support/test-service.js';

const UNAUTHORIZED = { statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' };
const wrongSiteHint = `The signed message must name domain ${new URL(PUBLIC_URL).host} and a URI on ${PUBLIC_URL}: open the console at ${PUBLIC_URL} (the service's PUBLIC_URL), or build the message for it.`;
const error401 = (message: string) => ({ statusCode: 401, message, error: 'Unauthorized' });

describe('operator sign-in, sessions and CSRF (e2e)', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ clock });
  });
  afterAll(() => svc.stop());

  it('Solana: nonce, login, verify, refresh, logout', async () => {
    const client = new Client(svc.url);
    const session = await signInSolana(client);
    expect(session.user.walletAddress).toBe(session.wallet.address);
    expect(session.user.id).toMatch(/^usr_/);

    const verify = await client.post('/api/nest/auth/verify');
    expect(verify).toMatchObject({ status: 200, body: { valid: true, principal: { type: 'session', userId: session.user.id } } });

    const refreshed = await new Client(svc.url).post('/api/nest/auth/refresh', { refreshToken: session.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refreshToken).not.toBe(session.refreshToken);
    client.bearer = refreshed.body.accessToken;
    await client.refreshCsrf();

    expect((await client.post('/api/nest/auth/logout')).status).toBe(200);
    expect(await client.post('/api/nest/auth/verify')).toMatchObject({ status: 401, body: UNAUTHORIZED });
    expect((await new Client(svc.url).post('/api/nest/auth/refresh', { refreshToken: refreshed.body.refreshToken })).status).toBe(401);
  });

  it('EVM: nonce, SIWE login with a real signature, verify', async () => {
    const client = new Client(svc.url);
    await client.refreshCsrf();
    const wallet = evmWallet();
    const { body: challenge } = await client.post('/api/nest/auth/evm/nonce');
    expect(challenge).toMatchObject({ nonce: expect.any(String), expiresAt: expect.any(String) });
    const message = wallet.message(challenge.nonce, new Date(clock.now()));
    const login = await client.post('/api/nest/auth/evm/login', {
      message,
      signature: await wallet.sign(message),
      walletAddress: wallet.address,
    });
    expect(login).toMatchObject({ status: 200, body: { user: { walletAddress: wallet.address } } });
    client.bearer = login.body.accessToken;
    expect((await client.post('/api/nest/auth/verify')).body.principal.walletAddress).toBe(wallet.address);
  });

  it('SIWS: the issued message names PUBLIC_URL (http here) as URI; a message for another origin is refused', async () => {
    const client = new Client(svc.url);
    await client.refreshCsrf();
    const wallet = solanaWallet();
    const { body: challenge } = await client.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
    expect(challenge.message).toContain(`\nURI: ${PUBLIC_URL}\n`);
    for (const uri of ['https://agents.test', 'http://evil.example']) {
      const message = challenge.message.replace(`URI: ${PUBLIC_URL}`, `URI: ${uri}`);
      const refused = await client.post('/api/nest/auth/login', {
        message,
        signature: wallet.sign(message),
        walletAddress: wallet.address,
      });
      expect(refused).toMatchObject({ status: 401, body: UNAUTHORIZED });
      // Still the interface's bare message, with the site the message must name as the next step.
      expect(refused.body.details.hint).toBe(wrongSiteHint);
    }
    const login = await client.post('/api/nest/auth/login', {
      message: challenge.message,
      signature: wallet.sign(challenge.message),
      walletAddress: wallet.address,
    });
    expect(login.status).toBe(200);
  });

  it('SIWE: refuses a URI off the service origin, a chain the service does not serve, an Issued At before the nonce', async () => {
    const client = new Client(svc.url);
    await client.refreshCsrf();
    const wallet = evmWallet();
    const { body: challenge } = await client.post('/api/nest/auth/evm/nonce');
    const attempt = async (now: Date, overrides: Parameters<typeof wallet.message>[2] = {}) => {
      const message = wallet.message(challenge.nonce, now, overrides);
      return client.post('/api/nest/auth/evm/login', { message, signature: await wallet.sign(message) });
    };
    const now = new Date(clock.now());
    expect(await attempt(now, { uri: 'https://agents.test' })).toMatchObject({ status: 401, body: UNAUTHORIZED });
    expect(await attempt(now, { uri: 'http://evil.example/login' })).toMatchObject({ status: 401, body: UNAUTHORIZED });
    const otherDomain = await attempt(now, { domain: 'console.example' });
    expect(otherDomain).toMatchObject({ status: 401, body: { ...UNAUTHORIZED, details: { hint: wrongSiteHint } } });
    expect(await attempt(now, { chainId: 137 })).not.toHaveProperty('body.details');
    expect(await attempt(now, { chainId: 137 })).toMatchObject({ status: 401, body: UNAUTHORIZED });
    expect(await attempt(new Date(clock.now() - 10 * 60_000))).toMatchObject({ status: 401, body: UNAUTHORIZED });
    // Each refusal left the nonce usable; a message on a served chain and our origin logs in.
    expect(await attempt(now, { chainId: 8453, uri: `${PUBLIC_URL}/login` })).toMatchObject({
      status: 200,
      body: { user: { walletAddress: wallet.address } },
    });
  });

  it('EVM nonce: no body, {} or {walletAddress}; a nonce asked for one wallet logs in only that wallet', async () => {
    const bare = await fetch(`${svc.url}/api/nest/auth/evm/nonce`, { method: 'POST' });
    expect(bare.status).toBe(200);
    expect(await bare.json()).toMatchObject({ nonce: expect.any(String), expiresAt: expect.any(String) });
    const client = new Client(svc.url);
    await client.refreshCsrf();
    expect((await client.post('/api/nest/auth/evm/nonce', {})).status).toBe(200);

    const owner = evmWallet();
    const thief = evmWallet();
    const { status, body: challenge } = await client.post('/api/nest/auth/evm/nonce', { walletAddress: owner.address.toLowerCase() });
    expect(status).toBe(200);
    const stolen = thief.message(challenge.nonce, new Date(clock.now()));
    expect(await client.post('/api/nest/auth/evm/login', { message: stolen, signature: await thief.sign(stolen) })).toMatchObject({
      status: 401,
      body: error401('Wallet address does not match signed message'),
    });
    const message = owner.message(challenge.nonce, new Date(clock.now()));
    expect(await client.post('/api/nest/auth/evm/login', { message, signature: await owner.sign(message) })).toMatchObject({
      status: 200,
      body: { user: { walletAddress: owner.address } },
    });

    const bad = await client.post('/api/nest/auth/evm/nonce', { walletAddress: 'not-an-address' });
    expect(bad).toMatchObject({
      status: 400,
      body: {
        statusCode: 400,
        error: 'Bad Request',
        message: ['walletAddress: must be a 0x-prefixed EVM address (lower case, upper case or EIP-55 checksummed)'],
      },
    });
    expect((await client.post('/api/nest/auth/evm/nonce', { chainId: 1 })).body.message).toEqual(['chainId is not a known field']);
  });

  it('a refresh token used twice revokes the whole family', async () => {
    const client = new Client(svc.url);
    const session = await signInSolana(client);
    const first = await new Client(svc.url).post('/api/nest/auth/refresh', { refreshToken: session.refreshToken });
    expect(first.status).toBe(200);
    const replay = await new Client(svc.url).post('/api/nest/auth/refresh', { refreshToken: session.refreshToken });
    expect(replay).toMatchObject({ status: 401, body: UNAUTHORIZED });
    // The family is gone: the rotated refresh token and the access tokens stop working too.
    expect((await new Client(svc.url).post('/api/nest/auth/refresh', { refreshToken: first.body.refreshToken })).status).toBe(401);
    client.bearer = first.body.accessToken;
    expect((await client.post('/api/nest/auth/verify')).status).toBe(401);
  });

  it('errors word for word: no header, unknown nonce, reused nonce, wrong wallet, expired token', async () => {
    const anonymous = new Client(svc.url);
    expect(await anonymous.post('/api/nest/auth/verify')).toMatchObject({ status: 401, body: UNAUTHORIZED });

    const client = new Client(svc.url);
    await client.refreshCsrf();
    const wallet = solanaWallet();
    const { body: challenge } = await client.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
    const forged = challenge.message.replace(challenge.nonce, 'AAAAAAAAAAAAAAAAAAAAAAAA');
    const unknown = await client.post('/api/nest/auth/login', {
      message: forged,
      signature: wallet.sign(forged),
      walletAddress: wallet.address,
    });
    expect(unknown).toMatchObject({ status: 401, body: error401('Invalid or expired nonce') });

    const body = { message: challenge.message, signature: wallet.sign(challenge.message), walletAddress: wallet.address };
    expect((await client.post('/api/nest/auth/login', body)).status).toBe(200);
    expect(await client.post('/api/nest/auth/login', body)).toMatchObject({ status: 401, body: error401('Nonce already consumed') });

    const other = solanaWallet();
    const { body: second } = await client.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
    const mismatch = await client.post('/api/nest/auth/login', {
      message: second.message,
      signature: wallet.sign(second.message),
      walletAddress: other.address,
    });
    expect(mismatch).toMatchObject({ status: 401, body: error401('Wallet address does not match signed message') });

    const session = await signInSolana(new Client(svc.url));
    await clock.advance(16 * 60 * 1000);
    const expired = new Client(svc.url);
    expired.bearer = session.accessToken;
    expect(await expired.post('/api/nest/auth/verify')).toMatchObject({ status: 401, body: error401('Token expired') });
  });

  it('an expired nonce is refused', async () => {
    const client = new Client(svc.url);
    await client.refreshCsrf();
    const wallet = solanaWallet();
    const { body: challenge } = await client.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
    await clock.advance(6 * 60 * 1000);
    const login = await client.post('/api/nest/auth/login', {
      message: challenge.message,
      signature: wallet.sign(challenge.message),
      walletAddress: wallet.address,
    });
    expect(login).toMatchObject({ status: 401, body: error401('Invalid or expired nonce') });
  });

  it('two concurrent logins with one nonce: exactly one succeeds', async () => {
    const client = new Client(svc.url);
    await client.refreshCsrf();
    const wallet = solanaWallet();
    const { body: challenge } = await client.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
    const body = { message: challenge.message, signature: wallet.sign(challenge.message), walletAddress: wallet.address };
    const results = await Promise.all(Array.from({ length: 5 }, () => client.post('/api/nest/auth/login', body)));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(results.filter((r) => r.status === 401).map((r) => r.body.message)).toEqual(Array(4).fill('Nonce already consumed'));
  });

  it('CSRF: login needs the cookie-bound token; session writes need the session-bound one', async () => {
    const client = new Client(svc.url);
    const wallet = solanaWallet();
    await client.refreshCsrf();
    const { body: challenge } = await client.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
    const body = { message: challenge.message, signature: wallet.sign(challenge.message), walletAddress: wallet.address };
    const token = client.csrf;
    client.csrf = undefined;
    expect(await client.post('/api/nest/auth/login', body)).toMatchObject({
      status: 403,
      body: { statusCode: 403, message: 'Forbidden', error: 'Forbidden' },
    });
    expect(await client.post('/api/nest/auth/login', body, { 'x-csrf-token': 'nope.nope' })).toMatchObject({
      status: 403,
      body: { message: 'Invalid CSRF token' },
    });
    // A token bound to another browser's cookie does not pass either.
    const stranger = new Client(svc.url);
    expect(await client.post('/api/nest/auth/login', body, { 'x-csrf-token': await stranger.refreshCsrf() })).toMatchObject({
      status: 403,
      body: { message: 'Invalid CSRF token' },
    });
    expect((await client.post('/api/nest/auth/login', body, { 'x-csrf-token': token! })).status).toBe(200);

    const alice = new Client(svc.url);
    await signInSolana(alice);
    const bob = new Client(svc.url);
    await signInSolana(bob);
    expect(await alice.post('/api/nest/agents', { name: 'A' }, { 'x-csrf-token': '' })).toMatchObject({
      status: 403,
      body: { message: 'Forbidden' },
    });
    expect(await alice.post('/api/nest/agents', { name: 'A' }, { 'x-csrf-token': bob.csrf! })).toMatchObject({
      status: 403,
      body: { message: 'Invalid CSRF token' },
    });
    expect((await alice.post('/api/nest/agents', { name: 'A' })).status).toBe(201);
    // Reads need no CSRF.
    expect((await alice.get('/api/nest/agents', { 'x-csrf-token': '' })).status).toBe(200);
  });

  it('refuses a refresh token as an access token and the other way round', async () => {
    const session = await signInSolana(new Client(svc.url));
    const misuse = new Client(svc.url);
    misuse.bearer = session.refreshToken;
    expect(await misuse.post('/api/nest/auth/verify')).toMatchObject({ status: 401, body: UNAUTHORIZED });
    expect((await new Client(svc.url).post('/api/nest/auth/refresh', { refreshToken: session.accessToken })).status).toBe(401);
  });

  it('metrics show request counts by route and store latency by operation', async () => {
    const text = await scrapeMetrics(svc);
    expect(text).toMatch(/store_operation_duration_seconds_count\{operation="put"\} [1-9]/);
    expect(text).toMatch(/store_operation_duration_seconds_count\{operation="get"\} [1-9]/);
    expect(text).toContain('route="/api/nest/auth/login"');
  });

  it('bad bodies get the validation envelope, never a 500', async () => {
    const client = new Client(svc.url);
    await client.refreshCsrf();
    const noAddress = await client.post('/api/nest/auth/nonce', {});
    expect(noAddress).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request', message: expect.any(Array) } });
    const garbage = await client.post('/api/nest/auth/login', { message: 'hello', signature: '0OIl', walletAddress: 'x' });
    expect(garbage.status).toBe(400);
  });
});
