/**
 * The actor inspector in headless Chromium against the real service: with the ops token given on
 * the ops page, an agent's key links to its actor; the inspector draws the api-key machine's
 * statechart from its definition with the current state marked, shows the context with the key's
 * hash redacted and a link to its agent, and the journal as a timeline. Without the token in the
 * tab the key table has no such link, and the inspector's address asks for the token first.
 * Screenshots, axe and widths at 1280 × 800 and 390 × 844.
 */
import nacl from 'tweetnacl';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naclSigner, OperatorClient } from '../../sdk/src/index.js';
import { injectSolanaWallet, launchChromium } from '../support/browser.js';
import { checkPage, DESKTOP } from '../support/console-page-checks.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let browser: Browser;
let page: Page;
let agentId: string;
let keyId: string;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchChromium()]);
  const keypair = nacl.sign.keyPair();
  const operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
  await operator.signInWithSolana(naclSigner(keypair));
  agentId = (await operator.agents.create({ name: 'inspected agent' })).agentId;
  keyId = (await operator.keys.create(agentId, { name: 'runtime', scope: 'read' })).keyId;
  page = await browser.newPage({ viewport: DESKTOP });
  page.setDefaultTimeout(10_000);
  await injectSolanaWallet(page, keypair);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

const keyActorLink = () => page.getByRole('link', { name: 'Inspect the actor of key runtime' });

describe('console: the actor inspector', () => {
  it('offers no actor link without the ops token', async () => {
    await page.goto(`${svc.url}/agents/${agentId}`);
    await page.getByRole('button', { name: 'Sign in with a Solana wallet' }).click();
    await page.getByRole('button', { name: 'Revoke runtime' }).waitFor();
    expect(await keyActorLink().count()).toBe(0);
  });

  it('with the token given on the ops page, a key links to its actor: chart with the current state, redacted context, journal', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Ops' }).click();
    await page.getByLabel('Ops token').fill(svc.opsToken);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Kill switch' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Agents' }).click();
    await page.getByRole('link', { name: 'inspected agent' }).click();
    await keyActorLink().click();

    await page.getByRole('heading', { name: `Actor api-key/${keyId}`, level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/ops/actors/api-key/${keyId}`);
    const current = page.getByRole('listitem', { name: 'State active (current)' });
    await current.waitFor();
    expect(await current.getAttribute('aria-current')).toBe('true');
    expect(await page.locator('[aria-current="true"]').count()).toBe(1);
    // Every state of the definition is drawn, the final ones too, with their transitions.
    for (const state of ['revoked', 'expired']) expect(await page.getByRole('listitem', { name: `State ${state}` }).isVisible()).toBe(true);
    expect(await page.getByRole('list', { name: 'Transitions from active' }).textContent()).toContain('key.revoke');

    const context = (await page.getByLabel('Context', { exact: true }).textContent()) ?? '';
    expect(context).toContain('"secretHash": "[Redacted]"');
    expect(context).not.toMatch(/"secretHash": "(?!\[Redacted\])/);
    expect(await page.getByRole('list', { name: 'Actors this context names' }).getByRole('link').getAttribute('href')).toBe(
      `/ops/actors/agent/${agentId}`,
    );
    const journal = page.getByRole('list', { name: 'Journal, oldest first' });
    expect(await journal.getByRole('listitem').first().textContent()).toMatch(/#1 · .*xstate\.init → active/);
    await checkPage(page, 'actor-inspector-key');
  });

  it('follows the context to the agent, and a reload asks for the token again', async () => {
    await page.getByRole('list', { name: 'Actors this context names' }).getByRole('link').click();
    await page.getByRole('heading', { name: `Actor agent/${agentId}`, level: 1 }).waitFor();
    // A new agent is active at once (created → active on creation).
    await page.getByRole('listitem', { name: 'State active (current)' }).waitFor();
    await page.reload();
    await page.getByLabel('Ops token').fill(svc.opsToken);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('listitem', { name: 'State active (current)' }).waitFor();
    await checkPage(page, 'actor-inspector-agent');
  });
});
