/**
 * A legacy bot's widget page in the operator console, in headless Chromium against the real
 * service: the allowed origins edited (a bad one refused with the service's words), the embed
 * snippet, the live preview once the console's origin is allowed (the real widget's launcher in
 * the frame), and an event the widget sent listed after reading again. Screenshots and axe at
 * 1280 × 800 and 390 × 844, where nothing may be wider than the screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectSolanaWallet, launchChromium } from '../support/browser.js';
import { checkPage as checkConsolePage, DESKTOP } from '../support/console-page-checks.js';
import { startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchChromium()]);
  page = await browser.newPage({ viewport: DESKTOP });
  page.setDefaultTimeout(15_000);
  await injectSolanaWallet(page);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

/** Notices closed, then the shared checks; the tables here must fit the phone's screen without scrolling. */
const checkPage = (name: string) => checkConsolePage(page, `bot-widget-${name}`, { tablesFit: true, dismissToasts: true });

const card = (name: string) => page.getByRole('region', { name });

describe('console: a bot widget page', () => {
  let botId = '';

  it('edits the allowed origins; a bad origin is refused with the service words; the snippet is there to copy', async () => {
    await page.goto(`${svc.url}/bots`);
    await page.getByRole('button', { name: 'Sign in with a Solana wallet' }).click();
    await page.getByLabel('Bot name').fill('Shop bot');
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByRole('link', { name: 'Shop bot' }).click();
    await page.getByRole('heading', { name: 'Shop bot', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Bot sections' }).getByRole('link', { name: 'Widget' }).click();
    botId = decodeURIComponent(/^\/bots\/([^/]+)\/widget$/.exec(new URL(page.url()).pathname)?.[1] ?? '');
    expect(botId).not.toBe('');

    const config = card('Widget configuration');
    const origins = config.getByLabel('Allowed origins (one per line)');
    await origins.fill('https://shop.example.com/checkout');
    await config.getByRole('button', { name: 'Save origins' }).click();
    // The service's own words for the refused origin, shown as it says them.
    await config
      .getByRole('alert')
      .getByText('must be an http(s) origin such as https://shop.example.com (no path)', { exact: false })
      .waitFor();

    await origins.fill('https://shop.example.com');
    await config.getByRole('button', { name: 'Save origins' }).click();
    await page.getByText('Allowed origins saved').waitFor();
    expect(await origins.inputValue()).toBe('https://shop.example.com');

    const snippet = card('Embed snippet').getByTestId('widget-snippet');
    expect(await snippet.textContent()).toBe(`<script src="${svc.url}/api/widget/${encodeURIComponent(botId)}/script.js" async></script>`);
    expect(await snippet.isVisible()).toBe(true);
    await card('Embed snippet').getByRole('button', { name: 'Copy snippet' }).waitFor();
    await checkPage('config');
  }, 90_000);

  it('previews the real widget once the console origin is allowed, and lists the event it sent', async () => {
    const preview = card('Preview');
    await preview.getByText('which is not among the allowed origins').waitFor();
    expect(await preview.locator('iframe').count()).toBe(0);
    await preview.getByRole('button', { name: "Allow this console's origin for the preview" }).click();
    const frame = page.frameLocator('iframe[title="Widget preview"]');
    const launcher = frame.getByRole('button', { name: 'Open chat' });
    await launcher.waitFor();
    expect(await launcher.isVisible()).toBe(true);
    expect(await card('Widget configuration').getByLabel('Allowed origins (one per line)').inputValue()).toBe(
      `https://shop.example.com\n${new URL(svc.url).origin}`,
    );

    const events = card('Events from the widget');
    await events.getByText('No events yet.', { exact: false }).waitFor();
    await page.locator('iframe[title="Widget preview"]').scrollIntoViewIfNeeded();
    await launcher.click();
    await frame.getByRole('dialog').waitFor();
    // The widget reports its opening without waiting: read again until it is listed.
    await expect
      .poll(
        async () => {
          await events.getByRole('button', { name: 'Read events again' }).click();
          return events.getByRole('rowheader', { name: 'open' }).count();
        },
        { timeout: 15_000, interval: 300 },
      )
      .toBeGreaterThan(0);
    expect(await events.getByRole('row', { name: /open/ }).first().textContent()).toContain(new URL(svc.url).origin);
    await checkPage('preview');
  }, 90_000);
});
