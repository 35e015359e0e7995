/**
 * The console's trading pages in headless Chromium against the real service: fund
 * the paper wallet from the faucet, "swap 10 USDC to SOL" from the command box with the safety
 * checks it passed, the order in the orders list (filters) and the position in the portfolio;
 * a held order approved from the inbox and another rejected; a DCA strategy created, paused,
 * resumed and deleted; the fill and the refusal as toasts from the live event stream. Screenshots of each page at desktop and phone widths.
 */
import type { Browser, Page } from 'playwright-core';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naclSigner, OperatorClient } from '../../sdk/src/index.js';
import { injectSolanaWallet, launchChromium, capturePage } from '../support/browser.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let browser: Browser;
let page: Page;
/** The wallet of the page, also signed in from the test (same user) to act while the page is offline. */
const wallet = nacl.sign.keyPair();

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchChromium()]);
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  // A step that cannot happen fails in 10 s with what it waited for, not at the test's timeout.
  page.setDefaultTimeout(10_000);
  await injectSolanaWallet(page, wallet);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** Desktop and phone screenshots of the page as it is now. */
async function shots(name: string): Promise<void> {
  await capturePage(page, `${name}-desktop`);
  await page.setViewportSize({ width: 390, height: 844 });
  await capturePage(page, `${name}-phone`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

const tab = (name: string) => page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name });

describe('console: trading pages', () => {
  it('signs in, creates an agent with trading on and opens it', async () => {
    await page.goto(`${svc.url}/agents`);
    await page.getByRole('button', { name: 'Sign in with a Solana wallet' }).click();
    await page.getByLabel('Name').fill('Trader');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('button', { name: 'Switch trading on' }).click();
    await page.getByText('trading on', { exact: true }).waitFor();
    await page.getByRole('link', { name: 'Trader' }).click();
    await page.getByRole('heading', { name: 'Trader', level: 1 }).waitFor();
  });

  it('creates the Solana wallet and funds it from the paper faucet', async () => {
    await tab('Portfolio').click();
    expect(new URL(page.url()).pathname).toMatch(/^\/agents\/[^/]+\/portfolio$/);
    await page.getByText('No positions yet').waitFor();
    const wallet = page.getByRole('region', { name: 'Solana wallet' });
    await wallet.getByRole('button', { name: 'Create the Solana wallet' }).click();
    await wallet.getByRole('heading', { name: 'Paper faucet' }).waitFor();
    await wallet.getByLabel('Token').fill('USDC');
    await wallet.getByLabel('Amount').fill('1000');
    await wallet.getByRole('button', { name: 'Add test funds' }).click();
    await page.getByText('Added 1000 USDC (paper); balance 1000').waitFor();
    await wallet.getByRole('list', { name: 'Balances of the Solana wallet' }).getByText('1,000 USDC').waitFor();
  });

  it('runs "swap 10 USDC to SOL" from the command box and shows the checks it passed', async () => {
    await tab('Trading').click();
    await page.getByText('No orders yet').waitFor();
    await page.getByLabel('Trading command').fill('swap 10 USDC to SOL');
    await page.getByRole('button', { name: 'Send command' }).click();
    const answer = page.getByTestId('command-answer');
    await answer.getByText('filled', { exact: true }).waitFor();
    const checks = await answer.getByRole('list', { name: 'Safety checks passed' }).getByRole('listitem').allTextContents();
    expect(checks.map((text) => text.replace('✓ ', ''))).toEqual(
      expect.arrayContaining(['credential scope', 'kill switch', 'balance', 'risk policy']),
    );
    const orders = page.getByRole('table', { name: 'Orders of this agent' });
    await orders.getByRole('row', { name: /10 USDC → .* SOL .*swap.*filled/ }).waitFor();
    // The fill arrives live on the agent's event stream (the owner's session reads it).
    await page
      .getByRole('status')
      .getByText(/^Filled: 10 USDC → .* SOL$/)
      .waitFor();
    await page.getByText('Live events').click();
    await page.getByRole('list', { name: 'Recent events, newest first' }).getByText('order.updated').first().waitFor();
    await shots('trading');
  });

  it('says why a command is refused, word for word', async () => {
    await page.getByLabel('Trading command').fill('swap 100000 USDC to SOL');
    await page.getByRole('button', { name: 'Send command' }).click();
    expect(await page.getByTestId('command-answer').getByRole('alert').textContent()).toBe(
      'Insufficient balance for requested swap amount',
    );
  });

  it('filters orders by status and side', async () => {
    await page.getByRole('combobox', { name: 'Side' }).selectOption('buy');
    await page.getByText('No order matches these filters.').waitFor();
    await page.getByRole('combobox', { name: 'Side' }).selectOption('swap');
    await page.getByRole('combobox', { name: 'Status' }).selectOption('filled');
    await page
      .getByRole('table', { name: 'Orders of this agent' })
      .getByRole('row', { name: /filled/ })
      .waitFor();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('expired');
    await page.getByText('No order matches these filters.').waitFor();
    await page.getByRole('combobox', { name: 'Status' }).selectOption('');
    await page.getByRole('combobox', { name: 'Side' }).selectOption('');
  });

  it('runs a Turkish command ("4 USDC ile SOL al") through the same checks', async () => {
    await page.getByLabel('Trading command').fill('4 USDC ile SOL al');
    await page.getByRole('button', { name: 'Send command' }).click();
    const answer = page.getByTestId('command-answer');
    await answer.getByText('filled', { exact: true }).waitFor();
    expect(await answer.getByRole('list', { name: 'Safety checks passed' }).getByRole('listitem').count()).toBeGreaterThan(0);
    await page
      .getByRole('table', { name: 'Orders of this agent' })
      .getByRole('row', { name: /4 USDC → .* SOL .*buy.*filled/ })
      .waitFor();
  });

  it('shows the bought SOL in positions and in the wallet', async () => {
    await tab('Portfolio').click();
    const positions = page.getByRole('table', { name: 'Positions and their profit and loss' });
    await positions.getByRole('rowheader', { name: /SOL solana/ }).waitFor();
    await page.getByRole('list', { name: 'Balances of the Solana wallet' }).getByText(/ SOL$/).waitFor();
    await page.getByRole('img', { name: /Portfolio value over the last 7 days/ }).waitFor();
    // The line is the service's readings, taken after the deposit and the fill (one a minute: here one), then the value now.
    const readings = page.getByRole('table', { name: 'Portfolio value readings, newest first' });
    await page.getByText(/^Readings \(\d+\)/).click();
    await readings.getByRole('cell', { name: 'after a trade or transfer' }).first().waitFor();
    await readings.getByRole('cell', { name: 'now', exact: true }).waitFor();
    await page.getByRole('group', { name: 'Chart range' }).getByRole('button', { name: '24 hours' }).click();
    await page.getByRole('img', { name: /Portfolio value over the last 24 hours/ }).waitFor();
    await shots('portfolio');
  });

  it('holds orders for approval: one approved from the inbox fills, one rejected is cancelled', async () => {
    await tab('Trading').click();
    await page.getByLabel('Hold every order for my approval').click();
    await expect.poll(() => page.getByLabel('Hold every order for my approval').isChecked()).toBe(true);
    for (const message of ['swap 5 USDC to SOL', 'swap 7 USDC to SOL']) {
      await page.getByLabel('Trading command').fill(message);
      await page.getByRole('button', { name: 'Send command' }).click();
      await page.getByTestId('command-answer').getByText('pending approval', { exact: true }).waitFor();
    }
    const inbox = page.getByRole('table', { name: 'Orders waiting for approval' });
    await inbox.getByRole('row').nth(2).waitFor();
    await shots('approvals');
    await inbox.getByRole('button', { name: /^Approve 5 USDC/ }).click();
    await page.getByText(/^Approved: 5 USDC .* \(filled\)$/).waitFor();
    await inbox.getByRole('button', { name: /^Reject 7 USDC/ }).click();
    await page.getByText(/^Rejected: 7 USDC/).waitFor();
    await page.getByText('No order is waiting for approval.').waitFor();
    const orders = page.getByRole('table', { name: 'Orders of this agent' });
    await orders.getByRole('row', { name: /5 USDC → .* filled/ }).waitFor();
    await orders.getByRole('row', { name: /7 USDC → .* cancelled/ }).waitFor();
    await page.getByLabel('Hold every order for my approval').click();
    await expect.poll(() => page.getByLabel('Hold every order for my approval').isChecked()).toBe(false);
  });

  it('creates a DCA strategy, pauses, resumes and deletes it', async () => {
    await tab('DCA').click();
    await page.getByText('No DCA strategy yet').waitFor();
    await page.getByLabel('Strategy name').fill('hourly-sol');
    await page.getByLabel('Spend (each buy)').fill('5');
    await page.getByLabel('Interval').fill('every 2h');
    await page.getByRole('button', { name: 'Create strategy' }).click();
    const card = page.getByRole('article', { name: 'hourly-sol' });
    await card.getByText('active', { exact: true }).waitFor();
    await card.getByText('Average price').waitFor();
    await shots('dca');
    await card.getByRole('button', { name: 'Pause hourly-sol' }).click();
    await card.getByText('paused', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Resume hourly-sol' }).click();
    await card.getByText('active', { exact: true }).waitFor();
    await card.getByRole('button', { name: 'Delete hourly-sol' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete hourly-sol?' });
    await confirm.getByRole('button', { name: 'Delete strategy' }).click();
    await page.getByText('No DCA strategy yet').waitFor();
  });

  it('shows a bad interval as the service words it', async () => {
    await page.getByLabel('Strategy name').fill('broken');
    await page.getByLabel('Interval').fill('every 10 seconds');
    await page.getByRole('button', { name: 'Create strategy' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/interval/i);
    expect(await page.getByRole('article').count()).toBe(0);
  });
  it('after a dropped connection, the live stream resumes with Last-Event-ID: the fill made meanwhile arrives', async () => {
    const agentId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');
    const same = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await same.signInWithSolana(naclSigner(wallet));
    await tab('Trading').click();
    await page.getByText('(Live)').waitFor();
    const resumed = page.waitForRequest(
      (request) => request.url().endsWith('/events/sse') && request.headers()['last-event-id'] !== undefined,
    );
    // Cut the stream (the service drops its connections) and hold the page's reconnects back while a fill happens.
    await page.route('**/events/sse', (route) => route.abort('connectionfailed'));
    svc.service.server.closeAllConnections();
    await page.getByText('reconnecting (no event is lost)', { exact: false }).waitFor();
    await same.trading.command({ message: 'swap 3 USDC to SOL' }, { agentId });
    await page.unroute('**/events/sse');
    expect(Number((await resumed).headers()['last-event-id'])).toBeGreaterThan(0);
    await page
      .getByRole('status')
      .getByText(/^Filled: 3 USDC → .* SOL$/)
      // The reconnect backs off (up to 10 s between tries while the route was held back), then replays.
      .waitFor({ timeout: 45_000 });
    await page
      .getByRole('table', { name: 'Orders of this agent' })
      .getByRole('row', { name: /^3 USDC → .* filled/ })
      .waitFor();
  }, 90_000);
});
