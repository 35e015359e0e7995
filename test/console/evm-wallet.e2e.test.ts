/**
 * The console with an Ethereum wallet (EIP-1193) in headless Chromium against the real service
 *, served at its public URL (EIP-4361 messages name its host): sign-in through the SIWE
 * routes with a wallet injected into the page, then the agent's claim signed by the same wallet
 * (an EIP-4361 message naming the agent).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectEvmWallet, launchChromium } from '../support/browser.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { freePort } from '../support/free-port.js';

let svc: TestService;
let browser: Browser;
let page: Page;
let address = '';

beforeAll(async () => {
  const port = await freePort();
  const env = { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` };
  [svc, browser] = await Promise.all([startTestService({ env }), launchChromium()]);
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(10_000);
  address = await injectEvmWallet(page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('console: an Ethereum wallet', () => {
  it('signs in with SIWE and shows the wallet', async () => {
    await page.goto(`${svc.url}/agents`);
    await page.getByRole('button', { name: 'Sign in with an Ethereum wallet' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    expect(await page.getByText(`${address.slice(0, 6)}`).count()).toBeGreaterThan(0);
  });

  it('claims an agent it created with the same wallet', async () => {
    await page.getByLabel('Name').fill('Evm agent');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('link', { name: 'Evm agent' }).click();
    await page.getByRole('button', { name: 'Claim with my wallet' }).click();
    await page
      .getByTestId('claim-status')
      .getByText(/^Claimed by you on /)
      .waitFor();
  });
});
