import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fundBot } from '../support/bot-funding.js';
import { injectSolanaWallet } from '../support/browser.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, scrapeMetrics, signInSolana, type solanaWallet, startTestService, type TestService } from '../support/test-service.js';
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
  /** How many calls of the widget's `route` the server answered with `status` (its request counter of /metrics). */
  const answers = async (route: 'init' | 'chat', status: number): Promise<number> => {
    const text = await scrapeMetrics(svc);
    const line = text
      .split('\n')
      .find(
        (row) =>
          row.startsWith('http_requests_total{') &&
          row.includes(`route="/api/widget/:botId/${route}"`) &&
          row.includes(`status="${status}"`),
      );
    return line ? Number(line.split(' ').pop()) : 0;
  };
  const initAnswers = (status: number) => answers('init', status);
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
    // A refusal this page cannot change offers nothing to try again.
    expect(await page.getByRole('button', { name: 'Try again' }).count()).toBe(0);
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
    expect(await alert.textContent()).toContain('Your chat session has ended. Start again to send your message.');
    await page.screenshot({ path: join(SHOTS, 'widget-expired-desktop.png') });
    const init = page.waitForResponse((response) => response.url().endsWith('/init'));
    await page.getByRole('button', { name: 'Start again' }).click();
    expect((await init).status()).toBe(200);
    // The refused message went on the new session; the chat goes on.
    await page.locator('.bot').nth(1).waitFor();
    await send(page, 'status');
    await page.locator('.bot').nth(2).waitFor();
    await page.close();
  });

  it('a message refused because the session ended is sent once on the new session; one whose answer was lost is not sent again', async () => {
    const page = await openPage(allowed);
    page.setDefaultTimeout(10_000); // a message never resent fails here, not at the test's timeout
    // What the page sent to /chat and what it was answered, in order.
    const chats: string[] = [];
    page.on('response', (response) => {
      if (!response.url().endsWith('/chat') || response.request().method() !== 'POST') return;
      const body = JSON.parse(response.request().postData() ?? '{}') as { message: string; message_id: string };
      chats.push(`${body.message} ${body.message_id} ${response.status()}`);
    });
    await page.getByRole('button', { name: 'Open chat' }).click();
    await send(page, 'status');
    await page.locator('.bot').first().waitFor();

    // This answer is lost on its way back: the server ran the message, the page saw the network fail.
    const ranBefore = await answers('chat', 200);
    await page.route(
      '**/chat',
      async (route) => {
        await route.fetch();
        await route.abort('connectionreset');
      },
      { times: 1 },
    );
    await send(page, 'what can you do');
    await expect.poll(() => page.locator('.fail').last().textContent()).toBe('The chat service cannot be reached.');
    expect(await answers('chat', 200)).toBe(ranBefore + 1);

    // Sent just as the session ends: refused (401), kept, shown as not sent yet.
    await clock.advance(3600_000);
    const refused = page.waitForResponse((response) => response.url().endsWith('/chat'));
    await send(page, 'balance');
    expect((await refused).status()).toBe(401);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('Your chat session has ended. Start again to send your message.');
    expect(await page.locator('.user.unsent').textContent()).toBe('balance');
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport);
      const file = join(SHOTS, `widget-expired-unsent-${name}.png`);
      await page.screenshot({ path: file });
      expect(statSync(file).size).toBeGreaterThan(10_000);
    }

    const resent = page.waitForResponse((response) => response.url().endsWith('/chat'));
    await page.getByRole('button', { name: 'Start again' }).click();
    expect((await resent).status()).toBe(200);
    await page.locator('.bot').nth(1).waitFor();
    expect(await page.locator('.user.unsent').count()).toBe(0);
    // The message moved below the new session's note: it was sent on that session.
    expect((await page.locator('.msg').allTextContents()).slice(-3, -1)).toEqual(['New session started.', 'balance']);
    // The next message goes out as usual: nothing else was sent in between, the lost one never again.
    await send(page, 'status');
    await page.locator('.bot').nth(2).waitFor();
    expect(chats.map((row) => row.replace(/ \S+ (\d+)$/, ' $1'))).toEqual(['status 200', 'balance 401', 'balance 200', 'status 200']);
    // The refused message went again under its own id.
    expect(chats[1]?.split(' ')[1]).toBe(chats[2]?.split(' ')[1]);
    for (const [name, viewport] of [
      ['desktop', { width: 1280, height: 800 }],
      ['phone', { width: 390, height: 844 }],
    ] as const) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: join(SHOTS, `widget-resent-${name}.png`) });
    }
    await page.close();
  });

  it('the owner signs in with an injected Solana wallet inside the widget; then a trade command runs', async () => {
    await signInSolana(owner, ownerWallet); // the console session ended with the driven hour
    await owner.patch(`/api/nest/bots/${botId}`, { tradingEnabled: true });
    await fundBot(svc.service, ownerId, botId);
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // A wallet as Phantom injects it (its key stays in the test process); like Phantom it
    // refuses a message whose domain is not the page's host.
    await injectSolanaWallet(page, nacl.sign.keyPair.fromSecretKey(ownerWallet.secretKey), { checkDomain: true });
    const signed: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/sign-in')) signed.push(JSON.parse(request.postData() ?? '{}').message);
    });
    await page.goto(`${allowed}/`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await send(page, 'swap 10 USDC to SOL');
    await expect.poll(() => page.locator('.bot').first().textContent()).toBe('Sign in as the owner to trade.');
    await page.getByRole('button', { name: 'Owner sign-in' }).click();
    await expect.poll(() => page.locator('.note').last().textContent()).toBe('Signed in as the owner: trading commands will run.');
    // The signed SIWS message names the host page (its host as domain, a URI on its origin), not the service.
    const pageHost = await page.evaluate(() => location.host);
    expect(signed[0]?.startsWith(`${pageHost} wants you to sign in with your Solana account:\n${ownerWallet.address}\n`)).toBe(true);
    expect(signed[0]).toContain(`\nURI: ${allowed}\n`);
    await send(page, 'swap 10 USDC to SOL');
    // The first trade of the process loads the trading pipeline: wait for the element, not a 1 s poll.
    await page.locator('.bot').nth(1).waitFor();
    expect(await page.locator('.bot').nth(1).textContent()).toMatch(/^Done: swap 10 USDC/);
    await page.close();
  });
});
