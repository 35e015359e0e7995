import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundBot } from '../support/bot-funding.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, signInSolana, type solanaWallet, startTestService, type TestService } from '../support/test-service.js';
import { launchChromium, startHostSite } from '../support/widget-browser.js';

const SHOTS = join(import.meta.dirname, 'screenshots');

describe('the chat widget in a real browser (headless chromium)', () => {
  let svc: TestService;
  let browser: Browser;
  let site: Awaited<ReturnType<typeof startHostSite>>;
  let botId: string;
  const clock = new ManualClock(Date.now());
  let allowed: string;
  let owner: Client;
  let ownerWallet: ReturnType<typeof solanaWallet>;
  let ownerId: string;

  beforeAll(async () => {
    svc = await startTestService({ clock });
    owner = new Client(svc.url);
    const signedIn = await signInSolana(owner);
    ownerWallet = signedIn.wallet;
    ownerId = signedIn.user.id;
    botId = (await owner.post('/api/nest/bots', { name: 'Widget bot' })).body.id;
    site = await startHostSite(() => `${svc.url}/api/widget/${botId}/script.js`);
    // The page on 127.0.0.1 is allowed; the same page on localhost is another origin, not allowed.
    allowed = `http://127.0.0.1:${site.port}`;
    expect((await owner.put(`/api/nest/bots/${botId}/widget-config`, { allowedOrigins: [allowed] })).status).toBe(200);
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await site?.close();
    await svc?.stop();
  });

  const openPage = async (origin: string, viewport = { width: 1280, height: 800 }): Promise<Page> => {
    const page = await browser.newPage({ viewport });
    await page.goto(`${origin}/`);
    await page.getByRole('button', { name: 'Open chat' }).waitFor();
    return page;
  };
  /** How many `init` calls the server answered with `status` (its request counter of /metrics). */
  const initAnswers = async (status: number): Promise<number> => {
    const text = await (await fetch(`${svc.url}/metrics`)).text();
    const line = text
      .split('\n')
      .find(
        (row) =>
          row.startsWith('http_requests_total{') && row.includes('route="/api/widget/:botId/init"') && row.includes(`status="${status}"`),
      );
    return line ? Number(line.split(' ').pop()) : 0;
  };
  const send = async (page: Page, text: string) => {
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.keyboard.press('Enter');
  };

  it('opens from the keyboard, sends a message and shows the reply; screenshots at desktop and phone sizes', async () => {
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      const page = await openPage(allowed, viewport);
      // Keyboard only: focus the launcher, open with Enter; the message box takes focus.
      await page.getByRole('button', { name: 'Open chat' }).focus();
      const init = page.waitForResponse((response) => response.url().endsWith('/init'));
      await page.keyboard.press('Enter');
      expect((await init).status()).toBe(200);
      const dialog = page.getByRole('dialog', { name: 'Shop assistant' });
      await dialog.waitFor();
      await expect.poll(() => page.evaluate(() => document.activeElement?.shadowRoot?.activeElement?.id)).toBe('msg');
      await send(page, 'status');
      const reply = dialog.getByRole('log', { name: 'Conversation' }).locator('.bot');
      await reply.waitFor();
      expect(await reply.textContent()).toContain('Widget bot');
      await send(page, 'swap 10 USDC to SOL');
      await expect.poll(() => dialog.locator('.bot').nth(1).textContent()).toBe('Sign in as the owner to trade.');
      const file = join(SHOTS, `widget-open-${name}.png`);
      await page.screenshot({ path: file });
      expect(statSync(file).size).toBeGreaterThan(10_000);
      // On a phone the panel fills the screen.
      if (name === 'phone') expect((await dialog.boundingBox())?.width).toBe(390);
      // Escape closes it and gives focus back to the launcher.
      await page.keyboard.press('Escape');
      await page.getByRole('button', { name: 'Open chat' }).waitFor();
      expect(await dialog.isHidden()).toBe(true);
      await page.close();
    }
    const events = await new Client(svc.url).get(`/api/nest/bots/${botId}/widget-events`);
    expect(events.status).toBe(401); // owner-only: the page's events are not public
    const kept = await svc.service.adapters.store.get<{ events: Array<{ type: string }> }>('bots.widget-events', botId);
    expect(new Set(kept?.data.events.map((event) => event.type))).toEqual(new Set(['open', 'message_shown', 'close']));
  });

  it('a page on an origin the owner did not allow shows the error state; the server answered 403', async () => {
    const page = await openPage(`http://localhost:${site.port}`);
    // The browser hides a refused cross-origin answer from the page (and from playwright): the server's count shows it.
    const refusedBefore = await initAnswers(403);
    const failed = page.waitForEvent('requestfailed', (request) => request.url().endsWith('/init'));
    await page.getByRole('button', { name: 'Open chat' }).click();
    await failed;
    await expect.poll(() => initAnswers(403)).toBe(refusedBefore + 1);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('This chat is not available on this site.');
    expect(await page.getByRole('textbox', { name: 'Message' }).isHidden()).toBe(true);
    await page.screenshot({ path: join(SHOTS, 'widget-refused-desktop.png') });
    await page.close();
  });

  it('an expired session asks to start again, and starting again goes on chatting', async () => {
    const page = await openPage(allowed);
    await page.getByRole('button', { name: 'Open chat' }).click();
    // Typed while the session is still starting: sent once it has.
    await send(page, 'status');
    await page.locator('.bot').first().waitFor();
    await clock.advance(3600_000);
    await send(page, 'status');
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Your chat session has ended. Start again to keep chatting.');
    await page.screenshot({ path: join(SHOTS, 'widget-expired-desktop.png') });
    const init = page.waitForResponse((response) => response.url().endsWith('/init'));
    await page.getByRole('button', { name: 'Start again' }).click();
    expect((await init).status()).toBe(200);
    await send(page, 'status');
    await page.locator('.bot').nth(1).waitFor();
    await page.close();
  });

  it('the owner signs in with an injected Solana wallet inside the widget; then a trade command runs', async () => {
    await signInSolana(owner, ownerWallet); // the console session ended with the driven hour
    await owner.patch(`/api/nest/bots/${botId}`, { tradingEnabled: true });
    await fundBot(svc.service, ownerId, botId);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // A wallet as Phantom injects it; its key stays in the test process.
    await page.exposeFunction('__ownerSign', (message: number[]) =>
      Array.from(nacl.sign.detached(Uint8Array.from(message), ownerWallet.secretKey)),
    );
    await page.addInitScript((address) => {
      const sign = (window as unknown as { __ownerSign(message: number[]): Promise<number[]> }).__ownerSign;
      (window as unknown as { solana: unknown }).solana = {
        connect: async () => ({ publicKey: { toString: () => address } }),
        signMessage: async (message: Uint8Array) => ({ signature: Uint8Array.from(await sign(Array.from(message))) }),
      };
    }, ownerWallet.address);
    await page.goto(`${allowed}/`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await send(page, 'swap 10 USDC to SOL');
    await expect.poll(() => page.locator('.bot').first().textContent()).toBe('Sign in as the owner to trade.');
    await page.getByRole('button', { name: 'Owner sign-in' }).click();
    await expect.poll(() => page.locator('.note').last().textContent()).toBe('Signed in as the owner: trading commands will run.');
    await send(page, 'swap 10 USDC to SOL');
    // The first trade of the process loads the trading pipeline: wait for the element, not a 1 s poll.
    await page.locator('.bot').nth(1).waitFor();
    expect(await page.locator('.bot').nth(1).textContent()).toMatch(/^Done: swap 10 USDC/);
    await page.close();
  });
});
