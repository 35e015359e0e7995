/**
 * The bot owner's Ethereum sign-in inside the chat widget (EIP-1193 wallet, EIP-4361 through
 * the widget's sign-in routes) in headless Chromium, as the Solana owner path: refused trade
 * first, sign-in, then the same trade command fills on the paper venue. The service runs at
 * its public URL (the script is served from the host its console messages name), the widget
 * on a host page of another origin; the wallet refuses, as MetaMask does, a message whose
 * domain is not the page's host, so the widget's message must name the page.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundBot } from '../support/bot-funding.js';
import { injectEvmWallet, injectSolanaWallet } from '../support/browser.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';
import { launchChromium, startHostSite } from '../support/widget-browser.js';
import { freePort } from '../support/free-port.js';

const SHOTS = join(import.meta.dirname, 'screenshots');

/** Signs `client` in with `wallet` through the console's SIWE routes (the bot's owner is an Ethereum user). */
async function signInEvm(client: Client, wallet: ReturnType<typeof evmWallet>, host: string): Promise<string> {
  await client.refreshCsrf();
  const { body: challenge } = await client.post('/api/nest/auth/evm/nonce', { walletAddress: wallet.address });
  const message = wallet.message(challenge.nonce, new Date(), { domain: host, uri: `http://${host}` });
  const login = await client.post('/api/nest/auth/evm/login', {
    message,
    signature: await wallet.sign(message),
    walletAddress: wallet.address,
  });
  if (login.status !== 200) throw new Error(`EVM login failed: ${login.status} ${JSON.stringify(login.body)}`);
  client.bearer = login.body.accessToken;
  await client.refreshCsrf();
  return login.body.user.id as string;
}

describe('the chat widget: the owner signs in with an Ethereum wallet (headless chromium)', () => {
  let svc: TestService;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof startHostSite>>;
  let botId: string;
  let serviceHost: string;
  const ownerWallet = evmWallet();

  beforeAll(async () => {
    const port = await freePort();
    serviceHost = `127.0.0.1:${port}`;
    [svc, browser] = await Promise.all([
      startTestService({ env: { PORT: String(port), PUBLIC_URL: `http://${serviceHost}` } }),
      launchChromium(),
    ]);
    const owner = new Client(svc.url);
    const ownerId = await signInEvm(owner, ownerWallet, serviceHost);
    botId = (await owner.post('/api/nest/bots', { name: 'Evm widget bot' })).body.id;
    // The host page is on localhost: another origin than the service's 127.0.0.1.
    site = await startHostSite(() => `${svc.url}/api/widget/${botId}/script.js`);
    expect((await owner.put(`/api/nest/bots/${botId}/widget-config`, { allowedOrigins: [`http://localhost:${site.port}`] })).status).toBe(
      200,
    );
    expect((await owner.patch(`/api/nest/bots/${botId}`, { tradingEnabled: true })).status).toBe(200);
    await fundBot(svc.service, ownerId, botId);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await svc?.stop();
  });

  const send = async (page: Page, text: string) => {
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.keyboard.press('Enter');
  };

  it('an injected EIP-1193 wallet signs in as the owner; then the trade command fills on the paper venue', async () => {
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const page = await browser.newPage({ viewport });
      // The wallet's key stays in the test process; the page only sees `window.ethereum`.
      await injectEvmWallet(page, ownerWallet.privateKey, { checkDomain: true });
      const signed: string[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('/sign-in')) signed.push(JSON.parse(request.postData() ?? '{}').message);
      });
      await page.goto(`http://localhost:${site.port}/`);
      await page.getByRole('button', { name: 'Open chat' }).click();
      const log = page.getByRole('log', { name: 'Conversation' });
      await send(page, 'swap 10 USDC to SOL');
      await expect.poll(() => log.locator('.bot').first().textContent()).toBe('Sign in as the owner to trade.');

      const answer = page.waitForResponse((response) => response.url().endsWith('/sign-in'));
      await page.getByRole('button', { name: 'Owner sign-in' }).click();
      expect((await answer).status()).toBe(200);
      await expect.poll(() => log.locator('.note').last().textContent()).toBe('Signed in as the owner: trading commands will run.');
      // The message the wallet signed names the host page (its host as domain, a URI on its origin), not the service.
      const pageHost = await page.evaluate(() => location.host);
      expect(pageHost).toBe(`localhost:${site.port}`);
      expect(signed[0]?.startsWith(`${pageHost} wants you to sign in with your Ethereum account:\n${ownerWallet.address}\n`)).toBe(true);
      expect(signed[0]).toContain(`\nURI: http://${pageHost}\n`);
      expect(signed[0]).not.toContain(serviceHost);
      expect(await page.getByRole('button', { name: 'Owner sign-in' }).isHidden()).toBe(true);

      const trade = page.waitForResponse((response) => response.url().endsWith('/chat'));
      await send(page, 'swap 10 USDC to SOL');
      const body = await (await trade).json();
      expect(body).toMatchObject({ intent: 'swap', executed: true, order: { status: 'filled', channel: 'widget', botId } });
      await log.locator('.bot').nth(1).waitFor();
      expect(await log.locator('.bot').nth(1).textContent()).toMatch(/^Done: swap 10 USDC/);
      const file = join(SHOTS, `widget-evm-owner-${name}.png`);
      await page.screenshot({ path: file });
      expect(statSync(file).size).toBeGreaterThan(10_000);
      await page.close();
    }
  }, 60_000);
  it('a slow session start does not take focus from the wallet choice the owner moved to meanwhile', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.setDefaultTimeout(10_000);
    await injectSolanaWallet(page, undefined, { checkDomain: true });
    await injectEvmWallet(page, ownerWallet.privateKey, { checkDomain: true });
    // The session's start is held until the wallet choice has focus.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route('**/init', async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(`http://localhost:${site.port}/`);
      await page.getByRole('button', { name: 'Open chat' }).click();
      await page.getByRole('button', { name: 'Owner sign-in' }).click();
      await page.getByRole('group', { name: 'Sign in with' }).waitFor();
      const focused = () => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent);
      await expect.poll(focused, { timeout: 10_000 }).toBe('Solana wallet');
      const started = page.waitForResponse((response) => response.url().endsWith('/init'));
      release();
      expect((await started).status()).toBe(200);
      // The widget's handling of the answer runs after it arrives: give it its turn, then look again.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
      expect(await focused()).toBe('Solana wallet');
    } finally {
      release(); // a failure before the release must not leave the start held
      await page.close();
    }
  }, 60_000);

  it('a browser with both kinds of wallet asks which one signs; the Ethereum one signs in and trades', async () => {
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const page = await browser.newPage({ viewport });
      page.setDefaultTimeout(10_000);
      // One extension may inject both (Phantom does): its Solana key is not the owner's.
      await injectSolanaWallet(page, undefined, { checkDomain: true });
      await injectEvmWallet(page, ownerWallet.privateKey, { checkDomain: true });
      await page.goto(`http://localhost:${site.port}/`);
      await page.getByRole('button', { name: 'Open chat' }).click();
      const signIn = page.getByRole('button', { name: 'Owner sign-in' });
      await signIn.click();
      const chooser = page.getByRole('group', { name: 'Sign in with' });
      await chooser.waitFor();
      expect(await signIn.getAttribute('aria-expanded')).toBe('true');
      // Focus moves on the next frame; on a busy machine that is past vitest's default 1 s of polling.
      await expect
        .poll(() => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.textContent), { timeout: 10_000 })
        .toBe('Solana wallet');
      const file = join(SHOTS, `widget-wallet-choice-${name}.png`);
      await page.screenshot({ path: file });
      expect(statSync(file).size).toBeGreaterThan(10_000);

      const answer = page.waitForResponse((response) => response.url().endsWith('/sign-in'));
      await chooser.getByRole('button', { name: 'Ethereum wallet' }).click();
      expect((await answer).status()).toBe(200);
      const log = page.getByRole('log', { name: 'Conversation' });
      await expect.poll(() => log.locator('.note').last().textContent()).toBe('Signed in as the owner: trading commands will run.');
      expect(await chooser.isHidden()).toBe(true);
      const trade = page.waitForResponse((response) => response.url().endsWith('/chat'));
      await send(page, 'swap 10 USDC to SOL');
      expect(await (await trade).json()).toMatchObject({ executed: true, order: { status: 'filled', channel: 'widget' } });
      await page.close();
    }
  }, 60_000);
});
