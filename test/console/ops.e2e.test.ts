/**
 * The console's ops page in headless Chromium against the real service: the ops
 * token typed and kept in memory only (a wrong one refused in words), the kill switch of a
 * chain flipped on and off (the service's own state checked), a catalog family off and on,
 * and an agent's actor inspected (machine state, context, journal). Screenshots at desktop and
 * phone widths.
 */
import nacl from 'tweetnacl';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naclSigner, OperatorClient, OpsClient } from '../../sdk/src/index.js';
import { launchChromium, capturePage } from '../support/browser.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let browser: Browser;
let page: Page;
let ops: OpsClient;
let agentId: string;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchChromium()]);
  ops = new OpsClient({ baseUrl: svc.url, opsToken: svc.opsToken });
  const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
  await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
  const agent = await operator.agents.create({ name: 'inspected' });
  await operator.agents.pause(agent.agentId);
  agentId = agent.agentId;
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  page.setDefaultTimeout(10_000);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

async function shots(name: string): Promise<void> {
  await capturePage(page, `${name}-desktop`);
  await page.setViewportSize({ width: 390, height: 844 });
  await capturePage(page, `${name}-phone`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe('console: ops page', () => {
  it('opens without a wallet, refuses a wrong token in words and takes the right one', async () => {
    await page.goto(`${svc.url}/ops`);
    await page.getByRole('heading', { name: 'Service operations', level: 1 }).waitFor();
    await page.getByLabel('Ops token').fill('not-the-token');
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.getByRole('alert').textContent()).toBe('Unauthorized');
    await page.getByLabel('Ops token').fill(svc.opsToken);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Kill switch' }).waitFor();
    // The token lives in memory only.
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length, document.cookie])).toEqual([0, 0, '']);
  });

  it('flips the kill switch of solana on and off', async () => {
    const button = page.getByRole('button', { name: 'Kill switch solana' });
    expect(await button.getAttribute('aria-pressed')).toBe('false');
    await button.click();
    await page.getByText('Trading stopped on solana').waitFor();
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('true');
    expect((await ops.killSwitch.get()).active).toEqual(['solana']);
    await shots('ops');
    await button.click();
    await expect.poll(() => button.getAttribute('aria-pressed')).toBe('false');
    expect((await ops.killSwitch.get()).active).toEqual([]);
  });

  it('switches a catalog family off and on', async () => {
    const research = page.getByRole('checkbox', { name: /^research/ });
    expect(await research.isChecked()).toBe(true);
    await research.click();
    await expect.poll(() => research.isChecked()).toBe(false);
    expect((await ops.catalog.get()).settings.disabledFamilies).toEqual(['research']);
    await research.click();
    await expect.poll(() => research.isChecked()).toBe(true);
    expect((await ops.catalog.get()).settings.disabledFamilies).toEqual([]);
  });

  it("inspects an agent's actor: machine state, context and journal", async () => {
    await page.getByRole('combobox', { name: 'Actor type' }).selectOption('agent');
    await page.getByRole('button', { name: 'List actors' }).click();
    await page.getByRole('link', { name: `Inspect ${agentId}` }).click();
    await page.getByRole('heading', { name: `Actor agent/${agentId}`, level: 1 }).waitFor();
    await page.getByRole('listitem', { name: 'State paused (current)' }).waitFor();
    expect(await page.getByLabel('Context', { exact: true }).textContent()).toContain(agentId);
    expect(await page.getByRole('list', { name: 'Journal, oldest first' }).getByRole('listitem').count()).toBeGreaterThan(0);
    await shots('ops-actor');
  });
});
