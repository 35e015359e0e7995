/**
 * The console's session across reloads and tabs in headless Chromium against the real service:
 * one wallet signature, then a reload and a second tab are signed in from the HttpOnly refresh
 * cookie (no new signature, no token in the page's storage), two tabs reloading at once both
 * stay signed in (one refresh at a time), and signing out in one tab signs the other out at once.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectSolanaWallet, launchChromium } from '../support/browser.js';
import { startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let browser: Browser;
let context: BrowserContext;
let first: Page;
let second: Page;
/** Wallet sign-ins the pages made (each one a signature). */
const logins: string[] = [];

function watch(page: Page): Page {
  page.setDefaultTimeout(10_000);
  page.on('request', (request) => {
    if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/nest/auth/login') logins.push(request.url());
  });
  return page;
}

const signInButton = (page: Page) => page.getByRole('button', { name: 'Sign in with a Solana wallet' });
const signedIn = (page: Page) => page.getByRole('button', { name: 'Sign out' }).waitFor();
const refreshCookie = async () =>
  (await context.cookies(`${svc.url}/api/nest/auth/refresh`)).find((cookie) => cookie.name === 'refresh_token');

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchChromium()]);
  context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  first = watch(await context.newPage());
  await injectSolanaWallet(first);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('console: the session survives reloads and spans tabs', () => {
  it('signs in once; the refresh token is an HttpOnly SameSite=Strict cookie of the refresh route, out of the page’s reach', async () => {
    await first.goto(`${svc.url}/agents`);
    await signInButton(first).click();
    await signedIn(first);
    expect(logins).toHaveLength(1);
    expect(await refreshCookie()).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/api/nest/auth/refresh', secure: false });
    const stored = await first.evaluate(() => ({
      cookies: document.cookie,
      storage: [...Object.keys(localStorage), ...Object.keys(sessionStorage)],
    }));
    expect(stored.cookies).not.toContain('refresh_token');
    expect(stored.storage).toEqual([]);
  });

  it('a reload is still signed in, without another signature', async () => {
    const before = await refreshCookie();
    await first.reload();
    await signedIn(first);
    await first.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    expect(logins).toHaveLength(1);
    // The reload refreshed from the cookie, which rotated.
    expect((await refreshCookie())?.value).not.toBe(before?.value);
  });

  it('a second tab is signed in, without another signature', async () => {
    second = watch(await context.newPage());
    await second.goto(`${svc.url}/agents`);
    await signedIn(second);
    expect(logins).toHaveLength(1);
  });

  it('two tabs reloading at once both stay signed in (their refreshes never present one cookie twice)', async () => {
    await Promise.all([first.reload(), second.reload()]);
    await Promise.all([signedIn(first), signedIn(second)]);
    // Both still work against the service: a write with each tab's session.
    for (const [page, name] of [
      [first, 'From the first tab'],
      [second, 'From the second tab'],
    ] as const) {
      await page.getByLabel('Name').fill(name);
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.getByRole('link', { name }).waitFor();
    }
    expect(logins).toHaveLength(1);
  });

  it('signing out in one tab signs the other out at once, clears the cookie, and a reload asks for a signature again', async () => {
    await second.getByRole('button', { name: 'Sign out' }).click();
    await signInButton(second).waitFor();
    await signInButton(first).waitFor();
    expect(await refreshCookie()).toBeUndefined();
    await first.reload();
    await signInButton(first).waitFor();
    expect(await first.getByRole('button', { name: 'Sign out' }).count()).toBe(0);
  });
});
