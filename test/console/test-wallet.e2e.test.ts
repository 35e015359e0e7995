/**
 * The test wallet in headless Chromium against the real service (embedded profile), in a
 * browser with no wallet extension: "Use a test wallet" makes a keypair in the page, signs in
 * through the same SIWS login route as a real wallet, shows "test wallet" beside the address,
 * survives a reload (the session from its cookie, the keypair from IndexedDB, its private key
 * not extractable), and after signing out signs the same operator in again.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { checkPage, DESKTOP } from '../support/console-page-checks.js';
import { startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let browser: Browser;
let page: Page;
/** Login routes the page posted to. */
const logins: string[] = [];

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchChromium()]);
  page = await browser.newPage({ viewport: DESKTOP });
  page.setDefaultTimeout(10_000);
  page.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (request.method() === 'POST' && path.startsWith('/api/nest/auth/') && path.endsWith('login')) logins.push(path);
  });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

const useTestWallet = () => page.getByRole('button', { name: 'Use a test wallet' });
const addressShown = () => page.locator('.who .address').getAttribute('title');
/** What the page's IndexedDB holds, and whether its private key can be read out. */
const stored = () =>
  page.evaluate(
    () =>
      new Promise<{ address?: string; extractable?: boolean }>((resolve, reject) => {
        const open = indexedDB.open('agent-console-test-wallet');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const get = open.result.transaction('wallets').objectStore('wallets').get('solana');
          get.onsuccess = () => {
            const wallet = get.result as { address: string; keys: CryptoKeyPair } | undefined;
            resolve(wallet ? { address: wallet.address, extractable: wallet.keys.privateKey.extractable } : {});
          };
        };
      }),
  );

describe('console: the test wallet (embedded profile)', () => {
  it('is offered, labelled test only, in a browser with no wallet', async () => {
    await page.goto(`${svc.url}/agents`);
    await useTestWallet().waitFor();
    expect(await page.getByText(/No wallet found in this browser/).isVisible()).toBe(true);
    expect(await page.getByRole('heading', { name: 'Test wallet test only' }).isVisible()).toBe(true);
    expect(await page.getByText(/never send funds to it/).isVisible()).toBe(true);
    await checkPage(page, 'test-wallet-sign-in');
  });

  it('signs in through the SIWS login route and says "test wallet" beside the address', async () => {
    await useTestWallet().click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(logins).toEqual(['/api/nest/auth/login']);
    const wallet = await stored();
    expect(wallet.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    expect(wallet.extractable).toBe(false);
    expect(await addressShown()).toBe(wallet.address);
    expect(await page.locator('.who').getByText('test wallet', { exact: true }).isVisible()).toBe(true);
    // Nothing of the wallet or the session in storage a script reads as text.
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);
    await checkPage(page, 'test-wallet-signed-in');
  });

  it('a reload keeps the session and the keypair', async () => {
    const before = await stored();
    await page.reload();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(logins).toHaveLength(1);
    expect(await addressShown()).toBe(before.address);
    await page.locator('.who').getByText('test wallet', { exact: true }).waitFor();
    expect(await stored()).toEqual(before);
  });

  it('after signing out, the same test wallet signs the same operator in again', async () => {
    const before = await stored();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await useTestWallet().waitFor();
    await page.getByText(`This browser's test wallet: ${before.address}`).waitFor();
    await useTestWallet().click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(logins).toEqual(['/api/nest/auth/login', '/api/nest/auth/login']);
    expect(await addressShown()).toBe(before.address);
  });
});
