/**
 * The operator console in headless Chromium against the real service (the key management flow): sign in with a Solana wallet injected into the page, create an agent, create a trade
 * key whose one-time modal closes by itself after 30 s (driven clock), enrol TOTP from the QR
 * step, see `Verification failed` for a wrong code on a manage key and the key made with a
 * right one, revoke a key after confirming; screenshots of the agents page at desktop and
 * phone widths.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectSolanaWallet, launchChromium, capturePage } from '../support/browser.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { codeAt, stoppedClock, wrongCode } from '../support/totp-codes.js';

let svc: TestService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchChromium()]);
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.clock.install();
  await injectSolanaWallet(page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

describe('console: keys (the key management flow)', () => {
  it('redirects /hub/api-keys to the agents page and signs in with the injected Solana wallet', async () => {
    await page.goto(`${svc.url}/hub/api-keys`);
    expect(new URL(page.url()).pathname).toBe('/agents');
    await page.getByRole('button', { name: 'Sign in with a Solana wallet' }).click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByText('No agents yet').waitFor();
  });

  it('creates an agent; screenshots of the agents page at desktop and phone widths', async () => {
    await page.getByLabel('Name').fill('Console agent');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('link', { name: 'Console agent' }).waitFor();
    await page.getByRole('button', { name: 'Switch trading on' }).click();
    await page.getByText('trading on', { exact: true }).waitFor();
    await capturePage(page, 'agents-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await capturePage(page, 'agents-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('creates a trade key: the secret shows once in a modal that closes itself after 30 s', async () => {
    await page.getByRole('link', { name: 'Console agent' }).click();
    await page.getByRole('heading', { name: 'Console agent', level: 1 }).waitFor();
    await page.getByText('No keys yet').waitFor();
    await page.getByLabel('Key name').fill('runtime');
    await page.getByRole('combobox', { name: 'Scope', exact: true }).selectOption('trade');
    await page.getByRole('button', { name: 'Create key' }).click();

    const modal = page.getByRole('dialog', { name: 'Your new key' });
    await modal.waitFor();
    const secret = modal.getByLabel('Secret');
    const shown = await secret.inputValue();
    expect(shown).toMatch(/^mcpk_/);
    // Focus moved into the dialog, on the secret.
    expect(await secret.evaluate((element) => element === document.activeElement)).toBe(true);
    await page.getByRole('cell', { name: 'runtime', exact: true }).waitFor();

    await page.clock.runFor(29_000);
    expect(await modal.isVisible()).toBe(true);
    await page.clock.runFor(1_000);
    await modal.waitFor({ state: 'detached' });
    // Nothing kept the secret: it is in no storage and no longer in the page.
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 0]);
    expect(await page.content()).not.toContain(shown);
  });

  it('a manage key asks the TOTP code first: a wrong one gives Verification failed, a right one makes the key', async () => {
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    await page.getByRole('img', { name: 'QR code to scan with your authenticator app' }).waitFor();
    const totpSecret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    const atActivation = stoppedClock();
    await page.getByLabel('Code from the app').fill(await codeAt(totpSecret, atActivation));
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('Authenticator app activated').waitFor();

    await page.getByLabel('Key name').fill('admin');
    await page.getByRole('combobox', { name: 'Scope', exact: true }).selectOption('manage');
    await page.getByRole('button', { name: 'Create key' }).click();
    const stepUp = page.getByRole('dialog', { name: 'Confirm with your authenticator' });
    await stepUp.waitFor();
    await stepUp.getByLabel('Authenticator code').fill(await wrongCode(totpSecret, atActivation));
    await stepUp.getByRole('button', { name: 'Verify and create key' }).click();
    expect(await stepUp.getByRole('alert').textContent()).toBe('Verification failed');

    // The activation used the current step; codes are single use, so the next step's code.
    await stepUp.getByLabel('Authenticator code').fill(await codeAt(totpSecret, atActivation, 1));
    await stepUp.getByRole('button', { name: 'Verify and create key' }).click();
    const modal = page.getByRole('dialog', { name: 'Your new key' });
    await modal.waitFor();
    expect(await modal.getByLabel('Secret').inputValue()).toMatch(/^mcpk_/);
    await modal.getByRole('button', { name: 'Done' }).click();
    await modal.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'manage', exact: true }).waitFor();
  });

  it('says Backend did not return a one-time secret when a created key comes back without it', async () => {
    // The service always returns it; a proxy or an older backend might not: the page must say so, not show an empty modal.
    await page.route('**/api/nest/agents/*/keys', async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      const answer = await route.fetch();
      const { secret: _dropped, ...rest } = (await answer.json()) as Record<string, unknown>;
      await route.fulfill({ response: answer, json: rest });
    });
    await page.getByLabel('Key name').fill('monitor');
    await page.getByRole('combobox', { name: 'Scope', exact: true }).selectOption('read');
    await page.getByRole('button', { name: 'Create key' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Backend did not return a one-time secret');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.unroute('**/api/nest/agents/*/keys');
  });

  it('revokes a key after a confirmation', async () => {
    await page.getByRole('button', { name: 'Revoke runtime' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke runtime?' });
    await confirm.waitFor();
    // Cancel first: nothing happens.
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('button', { name: 'Revoke runtime' }).click();
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('row', { name: /runtime trade .* revoked/ }).waitFor();
    expect(await page.getByRole('button', { name: 'Revoke runtime' }).count()).toBe(0);
    await capturePage(page, 'agent-keys-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await capturePage(page, 'agent-keys-phone');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in with a Solana wallet' }).waitFor();
  });
});
