/**
 * Legacy bots in the operator console, in headless Chromium against the real service (local
 * fakes of Telegram and Discord): create a bot; its keys with the agents' key flow (the secret
 * once, a manage key only after the authenticator code, revocation after confirming); its
 * Telegram and Discord configuration, start and stop, and a connector tripped by its circuit
 * breaker shown with the reason; its web chat, fees by channel and agent card. Every page is
 * screenshotted and checked with axe at 1280 × 800 and at 390 × 844, where nothing may be wider
 * than the screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { injectSolanaWallet, launchChromium } from '../support/browser.js';
import { checkPage as checkConsolePage, DESKTOP } from '../support/console-page-checks.js';
import { FakeDiscord, FakeTelegram } from '../support/platform-fakes.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { codeAt, stoppedClock } from '../support/totp-codes.js';

const TELEGRAM_TOKEN = `123456789:${'A'.repeat(35)}`;
const DISCORD_TOKEN = `${'M'.repeat(24)}.Gabcde.${'x'.repeat(27)}`;
const CHANNEL = '1100000000000000001';

let svc: TestService;
let browser: Browser;
let page: Page;
let telegram: FakeTelegram;
let discord: FakeDiscord;

beforeAll(async () => {
  telegram = await new FakeTelegram(TELEGRAM_TOKEN).start();
  discord = await new FakeDiscord(DISCORD_TOKEN).start();
  [svc, browser] = await Promise.all([
    startTestService({
      env: {
        TELEGRAM_API_URL: telegram.url,
        TELEGRAM_POLL_TIMEOUT_SECONDS: '1',
        DISCORD_API_URL: discord.url,
        DISCORD_POLL_INTERVAL_MS: '30',
        PLATFORM_RETRY_MS: '10',
        PLATFORM_SWEEP_MS: '200',
        CIRCUIT_BREAKER_THRESHOLD: '3',
      },
    }),
    launchChromium(),
  ]);
  page = await browser.newPage({ viewport: DESKTOP });
  page.setDefaultTimeout(15_000);
  await injectSolanaWallet(page);
}, 90_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
  await telegram?.stop();
  await discord?.stop();
});

/** Notices closed, then the shared checks; the tables here must fit the phone's screen without scrolling. */
const checkPage = (name: string) => checkConsolePage(page, `bots-${name}`, { tablesFit: true, dismissToasts: true });

const tab = (name: string) => page.getByRole('navigation', { name: 'Bot sections' }).getByRole('link', { name });
const card = (name: string) => page.getByRole('region', { name });

describe('console: legacy bots', () => {
  it('signs in at /bots and creates a bot, listed with its connectors stopped', async () => {
    await page.goto(`${svc.url}/bots`);
    await page.getByRole('button', { name: 'Sign in with a Solana wallet' }).click();
    await page.getByRole('heading', { name: 'Bots', level: 1 }).waitFor();
    await page.getByText('No bots yet.').waitFor();
    await page.getByLabel('Bot name').fill('Shop bot');
    await page.getByLabel('Description (optional)').fill(`Answers questions in the shop ${'and more '.repeat(20)}`);
    await page.getByRole('button', { name: 'Create bot' }).click();
    await page.getByRole('link', { name: 'Shop bot' }).waitFor();
    expect(await page.getByText('Telegram stopped').isVisible()).toBe(true);
    expect(await page.getByText('Discord stopped').isVisible()).toBe(true);
    await checkPage('list');
  }, 60_000);

  it('keys: a read key shown once; a manage key after the authenticator code; revoking asks first', async () => {
    await page.getByRole('link', { name: 'Shop bot' }).click();
    await page.getByRole('heading', { name: 'Shop bot', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toMatch(/^\/bots\/[^/]+$/);
    await page.getByText("No keys yet. Create one above for your bot's runtime.").waitFor();

    await page.getByLabel('Key name').fill('runtime');
    await page.getByRole('button', { name: 'Create key' }).click();
    const modal = page.getByRole('dialog', { name: 'Your new key' });
    await modal.waitFor();
    const secret = await modal.getByLabel('Secret').inputValue();
    expect(secret).toMatch(/^mcpk_/);
    await modal.getByRole('button', { name: 'Done' }).click();
    await modal.waitFor({ state: 'detached' });
    const row = page.getByRole('row', { name: /runtime/ });
    expect(await row.getByRole('cell', { name: 'read', exact: true }).isVisible()).toBe(true);
    expect(await row.locator('time').textContent()).toMatch(/just now|seconds? ago/);
    expect(await page.content()).not.toContain(secret);

    // The authenticator first, then a manage key asks its code.
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const totpSecret = (await page.getByTestId('totp-secret').textContent()) ?? '';
    const clock = stoppedClock();
    await page.getByLabel('Code from the app').fill(await codeAt(totpSecret, clock));
    await page.getByRole('button', { name: 'Activate' }).click();
    await page.getByText('Your authenticator app is set up').waitFor();

    await page.getByLabel('Key name').fill('admin');
    await page.getByRole('combobox', { name: 'Scope', exact: true }).selectOption('manage');
    await page.getByRole('button', { name: 'Create key' }).click();
    const stepUp = page.getByRole('dialog', { name: 'Confirm with your authenticator' });
    await stepUp.getByText('A manage key can do everything with this bot.', { exact: false }).waitFor();
    // The code of the next period: the one that activated the app works once.
    await stepUp.getByLabel('Authenticator code').fill(await codeAt(totpSecret, clock, 1));
    await stepUp.getByRole('button', { name: 'Verify and create key' }).click();
    await modal.waitFor();
    expect(await modal.getByLabel('Secret').inputValue()).toMatch(/^mcpk_/);
    await modal.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row', { name: /admin/ }).getByRole('cell', { name: 'manage', exact: true }).waitFor();

    await page.getByRole('button', { name: 'Revoke runtime' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke runtime?' });
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row.getByText('revoked').waitFor();
    expect(await page.getByRole('button', { name: 'Revoke runtime' }).count()).toBe(0);
    await checkPage('keys');
  }, 90_000);

  it('messaging: Telegram configured (token masked), started, tripped by its breaker with the reason, started again', async () => {
    await tab('Messaging').click();
    const tg = card('Telegram');
    await tg.getByText('Telegram stopped').waitFor();
    await tg.getByLabel('Bot token').fill(TELEGRAM_TOKEN);
    await tg.getByLabel('User ids who may trade by chat', { exact: false }).fill('4242');
    await tg.getByRole('button', { name: 'Save Telegram configuration' }).click();
    await tg.getByText(`Stored: ************${TELEGRAM_TOKEN.slice(-4)}. Leave empty to keep it.`).waitFor();
    expect(await page.content()).not.toContain(TELEGRAM_TOKEN);

    await tg.getByRole('button', { name: 'Start Telegram' }).click();
    await tg.getByText('Telegram started').waitFor();
    // The heading's badges follow.
    await page.locator('p.badges').getByText('Telegram started').waitFor();

    telegram.failing = true;
    try {
      // The page watches a started connector: the breaker's stop shows without a reload.
      await tg.getByText('Telegram tripped').waitFor({ timeout: 30_000 });
      await tg.getByText(/Circuit breaker open for provider: telegram/).waitFor();
      await checkPage('messaging-tripped');
    } finally {
      telegram.failing = false;
    }
    await tg.getByRole('button', { name: 'Start Telegram again' }).click();
    await tg.getByText('Telegram started').waitFor();
    await tg.getByRole('button', { name: 'Stop Telegram' }).click();
    await tg.getByText('Telegram stopped').waitFor();

    const dc = card('Discord');
    await dc.getByRole('button', { name: 'Start Discord' }).click();
    await dc.getByText('discord bot token is not configured').waitFor();
    await dc.getByLabel('Bot token').fill(DISCORD_TOKEN);
    await dc.getByLabel('Channel ids', { exact: false }).fill(CHANNEL);
    await dc.getByRole('button', { name: 'Save Discord configuration' }).click();
    await dc.getByText(`Stored: ************${DISCORD_TOKEN.slice(-4)}. Leave empty to keep it.`).waitFor();
    await checkPage('messaging');
  }, 90_000);

  it('chat, fees by channel and the agent card', async () => {
    await tab('Chat').click();
    await page.getByLabel('Message').fill('status');
    await page.getByRole('button', { name: 'Send' }).click();
    const answer = page.getByTestId('chat-answer');
    await answer.waitFor();
    expect(((await answer.locator('.reply').textContent()) ?? '').length).toBeGreaterThan(5);
    await checkPage('chat');

    await tab('Fees').click();
    const fees = page.getByRole('table', { name: 'Venue fees of filled orders by the channel that placed them' });
    await fees.getByRole('rowheader', { name: 'All channels' }).waitFor();
    await checkPage('fees');

    await tab('Card').click();
    await page.getByText('draft', { exact: true }).waitFor();
    await page.getByLabel('Card name').fill('Shop helper');
    await page.getByLabel('Description', { exact: true }).fill('Answers questions about the shop');
    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Card draft saved').waitFor();
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    await page.getByText('published', { exact: true }).waitFor();
    expect(await page.getByLabel('Card name').inputValue()).toBe('Shop helper');
    await checkPage('card');
    await page.getByRole('button', { name: 'Revoke from the directory' }).click();
    await page.getByText('revoked', { exact: true }).waitFor();
  }, 90_000);
});
