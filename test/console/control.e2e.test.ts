/**
 * The control-plane settings on the agent page in headless Chromium against the real service:
 * a change before the claim refused in words inside the step-up dialog;
 * the claim signed by the injected wallet; the scope cap, key rotation (new secret shown once)
 * and withdrawal settings, each after the authenticator code. The service runs on a driven
 * clock so each step-up gets a fresh TOTP period (codes are single use).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectSolanaWallet, launchChromium, capturePage } from '../support/browser.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { codeAt } from '../support/totp-codes.js';

const clock = new ManualClock(Date.now());
let svc: TestService;
let browser: Browser;
let page: Page;
let totpSecret = '';

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService({ clock }), launchChromium()]);
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(10_000);
  await injectSolanaWallet(page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** Answers the step-up dialog with the next TOTP period's code. */
async function stepUp(submitLabel: string): Promise<void> {
  clock.jumpTo(clock.now() + 30_000);
  const dialog = page.getByRole('dialog', { name: 'Confirm with your authenticator' });
  await dialog.getByLabel('Authenticator code').fill(await codeAt(totpSecret, clock));
  await dialog.getByRole('button', { name: submitLabel }).click();
}

describe('console: control plane', () => {
  it('signs in, creates an agent with a trade key and enrols the authenticator', async () => {
    await page.goto(`${svc.url}/agents`);
    await page.getByRole('button', { name: 'Sign in with a Solana wallet' }).click();
    await page.getByLabel('Name').fill('Controlled');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('link', { name: 'Controlled' }).click();
    await page.getByLabel('Key name').fill('runtime');
    await page.getByRole('combobox', { name: 'Scope', exact: true }).selectOption('trade');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog', { name: 'Your new key' }).getByRole('button', { name: 'Done' }).click();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    totpSecret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    await page.getByLabel('Code from the app').fill(await codeAt(totpSecret, clock));
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('Authenticator app activated').waitFor();
  });

  it('before the claim, a change is refused in words inside the dialog', async () => {
    await page.getByRole('combobox', { name: 'Highest scope' }).selectOption('trade');
    await page.getByRole('button', { name: 'Apply scope cap' }).click();
    await stepUp('Verify and apply');
    const dialog = page.getByRole('dialog', { name: 'Confirm with your authenticator' });
    expect(await dialog.getByRole('alert').textContent()).toBe(
      'Agent not claimed: claim it first with POST /api/nest/agents/:agentId/control/claim',
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  it('claims the agent with the signed-in wallet', async () => {
    await page.getByRole('button', { name: 'Claim with my wallet' }).click();
    await page
      .getByTestId('claim-status')
      .getByText(/^Claimed by you on /)
      .waitFor();
  });

  it('caps the scope of the agent credentials after the code', async () => {
    await page.getByRole('button', { name: 'Apply scope cap' }).click();
    await stepUp('Verify and apply');
    await page.getByText('Credentials now act with at most trade').waitFor();
  });

  it('rotates the keys: the new secret shows once', async () => {
    await page.getByRole('button', { name: 'Rotate keys' }).click();
    await stepUp('Verify and rotate');
    const modal = page.getByRole('dialog', { name: 'Your new key' });
    expect(await modal.getByLabel('Secret').inputValue()).toMatch(/^mcpk_/);
    await modal.getByRole('button', { name: 'Done' }).click();
    await modal.waitFor({ state: 'detached' });
    await page
      .getByRole('row', { name: /runtime trade .* revoked|runtime trade .* expired/ })
      .first()
      .waitFor();
  });

  it('saves the withdrawal settings after the code', async () => {
    await page.getByLabel('The agent may withdraw').check();
    await page.getByLabel('Daily cap in USD (empty: none)').fill('250');
    await page.getByRole('button', { name: 'Save withdrawal settings' }).click();
    await stepUp('Verify and save');
    await page.getByText('Withdrawal settings saved').waitFor();
    await expect.poll(() => page.getByLabel('Daily cap in USD (empty: none)').inputValue()).toBe('250');
    expect(await page.getByLabel('The agent may withdraw').isChecked()).toBe(true);
    await capturePage(page, 'agent-control-desktop');
    await page.setViewportSize({ width: 390, height: 844 });
    await capturePage(page, 'agent-control-phone');
  });
});
