/**
 * The refresh token as browsers keep it: login and refresh set it as an HttpOnly,
 * SameSite=Strict cookie scoped to the refresh route (Secure when PUBLIC_URL is https), a
 * refresh with no token in the body reads the cookie (with the pre-login CSRF token) and
 * rotates it, a reused cookie ends the family, and logout clears it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, type HttpResult, signInSolana, solanaWallet, startTestService, type TestService } from '../support/test-service.js';

const REFRESH = '/api/nest/auth/refresh';
const THIRTY_DAYS = 30 * 24 * 60 * 60;
const UNAUTHORIZED = { statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' };

/** The `Set-Cookie` of `name` in an answer: its value and its attributes as written. */
function setCookie(result: HttpResult, name: string): { value: string; attributes: string[] } | undefined {
  for (const line of result.headers.getSetCookie()) {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    if (pair.startsWith(`${name}=`)) return { value: pair.slice(name.length + 1), attributes };
  }
  return undefined;
}

/** A login as the console makes one, answering the raw result (headers included). */
async function login(client: Client): Promise<HttpResult> {
  const wallet = solanaWallet();
  await client.refreshCsrf();
  const { body: challenge } = await client.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
  return client.post('/api/nest/auth/login', {
    message: challenge.message,
    signature: wallet.sign(challenge.message),
    walletAddress: wallet.address,
  });
}

/**
 * A refresh as the console makes one after a reload: no token in the body nor a bearer, the
 * pre-login CSRF token, and the cookies the browser holds (`refreshCookie` in place of its own).
 */
async function cookieRefresh(client: Client, refreshCookie = client.cookie('refresh_token'), csrf?: string): Promise<HttpResult> {
  client.bearer = undefined;
  await client.refreshCsrf();
  const cookie = `csrf_pre=${client.cookie('csrf_pre')}; refresh_token=${refreshCookie}`;
  return client.post(REFRESH, undefined, { cookie, ...(csrf === undefined ? {} : { 'x-csrf-token': csrf }) });
}

async function verifies(svc: TestService, accessToken: string): Promise<number> {
  const client = new Client(svc.url);
  client.bearer = accessToken;
  return (await client.post('/api/nest/auth/verify')).status;
}

describe('the refresh cookie (e2e)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.stop());

  it('login sets it HttpOnly, SameSite=Strict, on the refresh route, for 30 days, not Secure on http; the JSON keeps refreshToken', async () => {
    const result = await login(new Client(svc.url));
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ accessToken: expect.any(String), refreshToken: expect.any(String), user: expect.any(Object) });
    const cookie = setCookie(result, 'refresh_token');
    expect(cookie?.value).toBe(result.body.refreshToken);
    expect(cookie?.attributes).toEqual([`Path=${REFRESH}`, 'HttpOnly', 'SameSite=Strict', `Max-Age=${THIRTY_DAYS}`]);
  });

  it('a refresh from the cookie rotates it: a new cookie, no refresh token in the JSON, a working access token', async () => {
    const client = new Client(svc.url);
    const session = await signInSolana(client);
    expect(client.cookie('refresh_token')).toBe(session.refreshToken);

    const refreshed = await cookieRefresh(client);
    expect(refreshed.status).toBe(200);
    const cookie = setCookie(refreshed, 'refresh_token');
    // The new refresh token is in the cookie only: no page script reads a 30-day credential.
    expect(refreshed.body).toEqual({ accessToken: expect.any(String), user: session.user });
    expect(cookie?.value).not.toBe(session.refreshToken);
    expect(cookie?.attributes).toEqual([`Path=${REFRESH}`, 'HttpOnly', 'SameSite=Strict', `Max-Age=${THIRTY_DAYS}`]);
    expect(refreshed.body.user).toEqual(session.user);
    expect(await verifies(svc, refreshed.body.accessToken)).toBe(200);
    // And again from the rotated cookie.
    expect((await cookieRefresh(client)).status).toBe(200);
  });

  it('a cookie-borne refresh needs the pre-login CSRF token, and a refusal leaves the cookie usable; no token at all is 401', async () => {
    const client = new Client(svc.url);
    await signInSolana(client);
    expect(await cookieRefresh(client, undefined, '')).toMatchObject({ status: 403, body: { message: 'Forbidden' } });
    expect(await cookieRefresh(client, undefined, 'nope.nope')).toMatchObject({ status: 403, body: { message: 'Invalid CSRF token' } });
    // A token bound to another browser's pre-login cookie does not pass either.
    const stranger = await new Client(svc.url).refreshCsrf();
    expect(await cookieRefresh(client, undefined, stranger)).toMatchObject({ status: 403, body: { message: 'Invalid CSRF token' } });
    expect((await cookieRefresh(client)).status).toBe(200);

    const nothing = new Client(svc.url);
    await nothing.refreshCsrf();
    expect(await nothing.post(REFRESH)).toMatchObject({ status: 401, body: UNAUTHORIZED });
  });

  it('a reused (old) refresh cookie is refused, cleared, and ends the whole family', async () => {
    const client = new Client(svc.url);
    const session = await signInSolana(client);
    const first = await cookieRefresh(client);
    expect(first.status).toBe(200);
    const rotated = setCookie(first, 'refresh_token')!.value;

    const replay = await cookieRefresh(client, session.refreshToken);
    expect(replay).toMatchObject({ status: 401, body: UNAUTHORIZED });
    expect(setCookie(replay, 'refresh_token')).toEqual({
      value: '',
      attributes: [`Path=${REFRESH}`, 'HttpOnly', 'SameSite=Strict', 'Max-Age=0'],
    });
    // The family is gone: the rotated cookie and the access token stop working too.
    expect(await cookieRefresh(client, rotated)).toMatchObject({ status: 401, body: UNAUTHORIZED });
    expect(await verifies(svc, first.body.accessToken)).toBe(401);
    // A cookie that is not a token is refused and cleared the same way.
    const garbage = await cookieRefresh(new Client(svc.url), 'not a token');
    expect(garbage).toMatchObject({ status: 401, body: UNAUTHORIZED });
    expect(setCookie(garbage, 'refresh_token')?.attributes).toContain('Max-Age=0');
  });

  it('a refresh with the token in the body replaces the cookie too, so a browser never keeps a rotated-out token', async () => {
    const client = new Client(svc.url);
    const session = await signInSolana(client);
    const byBody = await new Client(svc.url).post(REFRESH, { refreshToken: session.refreshToken });
    expect(byBody.status).toBe(200);
    expect(setCookie(byBody, 'refresh_token')?.value).toBe(byBody.body.refreshToken);
  });

  it('logout clears the cookie (Max-Age=0) and ends the session server-side', async () => {
    const client = new Client(svc.url);
    const session = await signInSolana(client);
    const logout = await client.post('/api/nest/auth/logout');
    expect(logout).toMatchObject({ status: 200, body: { success: true } });
    expect(setCookie(logout, 'refresh_token')).toEqual({
      value: '',
      attributes: [`Path=${REFRESH}`, 'HttpOnly', 'SameSite=Strict', 'Max-Age=0'],
    });
    expect(await cookieRefresh(client, session.refreshToken)).toMatchObject({ status: 401, body: UNAUTHORIZED });
    expect(await verifies(svc, session.accessToken)).toBe(401);
  });
});

describe('the refresh cookie behind https (e2e)', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ env: { PUBLIC_URL: 'https://agents.test' } });
  });
  afterAll(() => svc.stop());

  it('every cookie the service sets is Secure when PUBLIC_URL is https', async () => {
    const client = new Client(svc.url);
    const csrf = await client.get('/api/nest/auth/csrf');
    expect(setCookie(csrf, 'csrf_pre')?.attributes).toContain('Secure');

    const loggedIn = await login(client);
    expect(loggedIn.status).toBe(200);
    expect(setCookie(loggedIn, 'refresh_token')?.attributes).toEqual([
      `Path=${REFRESH}`,
      'HttpOnly',
      'SameSite=Strict',
      `Max-Age=${THIRTY_DAYS}`,
      'Secure',
    ]);

    const refreshed = await cookieRefresh(client);
    expect(refreshed.status).toBe(200);
    expect(setCookie(refreshed, 'refresh_token')?.attributes).toContain('Secure');

    client.bearer = refreshed.body.accessToken;
    await client.refreshCsrf();
    const logout = await client.post('/api/nest/auth/logout');
    expect(setCookie(logout, 'refresh_token')?.attributes).toEqual([
      `Path=${REFRESH}`,
      'HttpOnly',
      'SameSite=Strict',
      'Max-Age=0',
      'Secure',
    ]);
  });
});
