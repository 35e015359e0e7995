/**
 * The console's layout in headless Chromium against the real service, at 1280 × 800 and at a
 * phone's 390 × 844: no element of any page is wider than the screen, a table's rows stack on a
 * phone with their actions inside the box, a long key name wraps instead of pushing Revoke out,
 * the agent tabs stay on one row, the wallet address shows on a phone and notices never sit on
 * the navigation. Each page is screenshotted and checked with axe-core at both widths.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturePage, injectSolanaWallet, launchChromium } from '../support/browser.js';
import { startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let browser: Browser;
let page: Page;
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
const LONG_NAME = `runtime-${'x'.repeat(90)}`;

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchChromium()]);
  page = await browser.newPage({ viewport: DESKTOP });
  page.setDefaultTimeout(10_000);
  await injectSolanaWallet(page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

type Box = { x: number; y: number; width: number; height: number };
const inside = (inner: Box, outer: Box) => inner.x >= outer.x - 0.5 && inner.x + inner.width <= outer.x + outer.width + 0.5;
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** Elements wider than the screen, or reaching past its sides (visually hidden text excepted), as selectors. */
function tooWide(): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width <= 1 || element.closest('.sr-only')) continue;
      // Content a scroll region clips is reachable inside it; the region itself must fit.
      const region = element.parentElement?.closest('.table-wrap, .json, .events-scroll');
      if (region) continue;
      if (box.width > width + 0.5 || box.right > width + 0.5 || box.left < -0.5) {
        found.push(
          `${element.tagName.toLowerCase()}.${[...element.classList].join('.')} ${Math.round(box.left)}..${Math.round(box.right)}`,
        );
      }
    }
    // A table that needs a sideways scroll on a phone hides its last columns: stacked rows must fit their box.
    for (const region of document.querySelectorAll('.table-wrap')) {
      if (region.scrollWidth > region.clientWidth + 1)
        found.push(`scrolling ${region.getAttribute('aria-label')}: ${region.scrollWidth} > ${region.clientWidth}`);
    }
    return found;
  });
}

/** Screenshots and axe at both widths, and nothing wider than the phone's screen. */
async function checkPage(name: string): Promise<void> {
  await capturePage(page, `layout-${name}-desktop`);
  await page.setViewportSize(PHONE);
  expect(await tooWide(), name).toEqual([]);
  await capturePage(page, `layout-${name}-phone`);
  await page.setViewportSize(DESKTOP);
}

/** Closes every notice showing, so none is in a screenshot. */
async function dismissNotices(): Promise<void> {
  const close = page.getByRole('button', { name: /^Dismiss: / });
  while ((await close.count()) > 0) await close.first().click();
}

const tab = (name: string) => page.getByRole('navigation', { name: 'Agent sections' }).getByRole('link', { name });
const box = async (locator: ReturnType<Page['locator']>): Promise<Box> => {
  const found = await locator.boundingBox();
  if (!found) throw new Error('not on screen');
  return found;
};

describe('console layout at 1280 and 390 px', () => {
  it('signs in; the agents page fits a phone and shows the wallet address there', async () => {
    await page.goto(`${svc.url}/agents`);
    await checkPage('sign-in');
    await page.getByRole('button', { name: 'Sign in with a Solana wallet' }).click();
    for (const name of ['First agent', 'Second agent']) {
      await page.getByLabel('Name').fill(name);
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.getByRole('link', { name }).waitFor();
    }
    await page.getByRole('listitem').filter({ hasText: 'First agent' }).getByRole('button', { name: 'Switch trading on' }).click();
    await page.getByRole('listitem').filter({ hasText: 'First agent' }).getByText('trading on', { exact: true }).waitFor();
    await dismissNotices();
    await checkPage('agents');
    await page.setViewportSize(PHONE);
    expect(await page.locator('.who .address').isVisible()).toBe(true);
    await page.setViewportSize(DESKTOP);
  });

  it('on a phone, a notice for a control low on the screen sits below the navigation, not on it', async () => {
    await page.setViewportSize(PHONE);
    await page.evaluate(() => window.scrollTo(0, 0));
    const lowControl = page.getByRole('listitem').filter({ hasText: 'Second agent' }).getByRole('button', { name: 'Switch trading on' });
    expect((await box(lowControl)).y).toBeGreaterThan(PHONE.height / 2);
    await lowControl.focus();
    await page.keyboard.press('Enter');
    const notice = page.locator('.toast').filter({ hasText: 'Second agent: trading switched on' });
    await notice.waitFor();
    const noticeBox = await box(notice);
    for (const bar of await page.locator('header, nav').all()) {
      if (await bar.isVisible()) expect(overlaps(noticeBox, await box(bar))).toBe(false);
    }
    await dismissNotices();
    await page.setViewportSize(DESKTOP);
  });

  it('a long key name wraps: Revoke stays inside its box at 1280 and on a phone, where rows stack', async () => {
    await page.getByRole('link', { name: 'First agent' }).click();
    await page.getByRole('heading', { name: 'First agent', level: 1 }).waitFor();
    await page.getByLabel('Key name').fill(LONG_NAME);
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('dialog', { name: 'Your new key' }).getByRole('button', { name: 'Done' }).click();
    const revoke = page.getByRole('button', { name: `Revoke ${LONG_NAME}` });
    const region = page.getByRole('region', { name: 'API keys' });
    for (const viewport of [DESKTOP, PHONE]) {
      await page.setViewportSize(viewport);
      expect(inside(await box(revoke), await box(region)), `Revoke inside the keys box at ${viewport.width}`).toBe(true);
    }
    // Stacked on a phone: each cell says what it is.
    expect(await page.getByRole('cell', { name: /ago$/ }).evaluate((cell) => getComputedStyle(cell, '::before').content)).toBe('"Created"');
    await page.setViewportSize(DESKTOP);
    await checkPage('agent-keys');
  });

  it('the agent tabs stay on one row on a phone', async () => {
    await page.setViewportSize(PHONE);
    const tops = await Promise.all(['Keys and settings', 'Trading', 'Portfolio', 'DCA'].map(async (name) => (await box(tab(name))).y));
    expect(new Set(tops).size).toBe(1);
    await page.setViewportSize(DESKTOP);
  });

  it('trading, portfolio, DCA and ops pages fit a phone, with orders and positions stacked', async () => {
    await tab('Portfolio').click();
    const wallet = page.getByRole('region', { name: 'Solana wallet' });
    await wallet.getByRole('button', { name: 'Create the Solana wallet' }).click();
    await wallet.getByLabel('Token').fill('USDC');
    await wallet.getByLabel('Amount').fill('1000');
    await wallet.getByRole('button', { name: 'Add test funds' }).click();
    await page.getByText('Added 1000 USDC (paper); balance 1000').waitFor();
    await dismissNotices();

    await tab('Trading').click();
    await page.getByLabel('Trading command').fill('swap 10 USDC to SOL');
    await page.getByRole('button', { name: 'Send command' }).click();
    await page
      .getByRole('table', { name: 'Orders of this agent' })
      .getByRole('row', { name: /filled/ })
      .waitFor();
    await page
      .getByRole('status')
      .getByText(/^Filled: /)
      .waitFor();
    await dismissNotices();
    await checkPage('trading');

    await tab('Portfolio').click();
    await page
      .getByRole('table', { name: 'Positions and their profit and loss' })
      .getByRole('rowheader', { name: /SOL solana/ })
      .waitFor();
    await checkPage('portfolio');

    await tab('DCA').click();
    await page.getByRole('heading', { name: 'New DCA strategy' }).waitFor();
    await checkPage('dca');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Ops' }).click();
    await page.getByRole('heading', { name: 'Service operations', level: 1 }).waitFor();
    await checkPage('ops');
  });
});
