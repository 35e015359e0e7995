/**
 * Notices on a phone (390 × 844) in headless Chromium against the real service: a compact strip
 * at the screen's edge away from the control just tapped, so it never covers it; the newest two
 * only; dismissible from the keyboard; gone by itself after 4 s (6 s on a desktop). Screenshots
 * of the screen with notices showing are test artifacts (test/console/screenshots/).
 */
import { mkdirSync } from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturePage, injectSolanaWallet, launchChromium } from '../support/browser.js';
import { startTestService, type TestService } from '../support/test-service.js';

let svc: TestService;
let browser: Browser;
let page: Page;
const PHONE = { width: 390, height: 844 };

beforeAll(async () => {
  [svc, browser] = await Promise.all([startTestService(), launchChromium()]);
  page = await browser.newPage({ viewport: PHONE });
  page.setDefaultTimeout(10_000);
  await page.clock.install();
  await injectSolanaWallet(page);
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await svc?.stop();
});

type Box = { x: number; y: number; width: number; height: number };
const overlaps = (a: Box, b: Box) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;

/** The notices on screen now, in viewport pixels. */
const noticeBoxes = () =>
  page
    .locator('.toast')
    .evaluateAll((items) => items.map((item) => item.getBoundingClientRect().toJSON() as Box).filter((box) => box.height > 0));

/** The screen as a person holds it (not the full page: the notices are fixed to the screen). */
async function screenShot(name: string): Promise<void> {
  const dir = new URL('./screenshots/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, dir).pathname });
}

/** Taps `control` with it at `where` of the screen's height (0 top, 1 bottom); answers its box then. */
async function tapAt(control: Locator, where: number): Promise<Box> {
  // Scrolled until the control stays put: a list still re-rendering after the last action changes the page's height.
  let box: Box | null = null;
  for (let attempt = 0; attempt < 20; attempt++) {
    await control.evaluate((element, at) => {
      const { top, height } = element.getBoundingClientRect();
      window.scrollBy(0, top + height / 2 - window.innerHeight * at);
    }, where);
    await page.waitForTimeout(50);
    const settled = await control.boundingBox();
    if (box && settled && Math.abs(settled.y - box.y) < 1) break;
    box = settled;
  }
  await control.click();
  return box!;
}

/** Dismisses every notice showing, from the keyboard. */
async function dismissAll(): Promise<void> {
  for (let close = page.getByRole('button', { name: /^Dismiss: / }); (await close.count()) > 0; ) {
    await close.first().focus();
    await page.keyboard.press('Enter');
  }
}

describe('console: notices on a phone', () => {
  it('keeps the newest two notices, compact, at the bottom edge when the control used is in the upper half', async () => {
    await page.goto(`${svc.url}/agents`);
    await page.getByRole('button', { name: 'Sign in with a Solana wallet' }).click();
    for (const name of ['Alpha', 'Beta', 'Gamma', 'Delta']) {
      await page.getByLabel('Name').fill(name);
      await page.getByRole('button', { name: 'Create agent' }).click();
      await page.getByRole('link', { name }).waitFor();
    }
    const status = page.getByRole('status');
    await status.getByText('Created agent Delta').waitFor();
    expect(await status.getByText(/^Created agent/).allTextContents()).toEqual(['Created agent Gamma', 'Created agent Delta']);
    await capturePage(page, 'toasts-phone');
    await screenShot('toasts-phone-bottom');

    const create = (await page.getByRole('button', { name: 'Create agent' }).boundingBox())!;
    const boxes = await noticeBoxes();
    expect(boxes).toHaveLength(2);
    for (const box of boxes) {
      expect(box.height).toBeLessThanOrEqual(48);
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
      expect(box.y).toBeGreaterThan(PHONE.height / 2);
      expect(overlaps(box, create)).toBe(false);
    }
    await dismissAll();
    expect(await noticeBoxes()).toEqual([]);
  });

  it('shows the notice at the top edge when the control used is low on the screen, never over it', async () => {
    // Delta, the last created, is last in the list (creation order): the page scrolls far enough to bring it low.
    const pause = page.getByRole('listitem').filter({ hasText: 'Delta' }).getByRole('button', { name: 'Pause' });
    const tapped = await tapAt(pause, 0.9);
    expect(tapped.y).toBeGreaterThan(PHONE.height * 0.8);
    const notice = page.getByRole('status').getByText('Delta: paused');
    await notice.waitFor();
    await screenShot('toasts-phone-top');
    const [box] = await noticeBoxes();
    expect(box!.y + box!.height).toBeLessThan(PHONE.height / 2);
    expect(overlaps(box!, tapped)).toBe(false);
    // Dismissed from the keyboard: its close button takes focus and Enter.
    await page.getByRole('button', { name: 'Dismiss: Delta: paused' }).focus();
    await page.keyboard.press('Enter');
    await notice.waitFor({ state: 'detached' });
  });

  it('leaves by itself after 4 s on a phone', async () => {
    const resume = page.getByRole('listitem').filter({ hasText: 'Delta' }).getByRole('button', { name: 'Resume' });
    await tapAt(resume, 0.3);
    const notice = page.getByRole('status').getByText('Delta: resumed');
    await notice.waitFor();
    await page.mouse.move(0, 0); // not resting on the notice, which would hold it
    await page.clock.runFor(3_800);
    expect(await notice.count()).toBe(1);
    await page.clock.runFor(300);
    // Within a second of real time: a 6 s notice would still show.
    await notice.waitFor({ state: 'detached', timeout: 1_000 });
  });

  it('shows the newest two of the notices a desktop showed once the screen narrows to a phone', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    for (const name of ['Alpha', 'Beta', 'Gamma']) {
      await page.getByRole('listitem').filter({ hasText: name }).getByRole('button', { name: 'Pause' }).click();
      await page.getByRole('status').getByText(`${name}: paused`).waitFor();
    }
    expect(await noticeBoxes()).toHaveLength(3);
    await page.setViewportSize(PHONE);
    const shown = await page.locator('.toast:visible .toast-text').allTextContents();
    expect(shown).toEqual(['Beta: paused', 'Gamma: paused']);
    expect(await noticeBoxes()).toHaveLength(2);
    await dismissAll();
  });
});
