/**
 * Checks of a console page in Chromium: screenshots and axe at 1280 × 800 and 390 × 844, and no
 * element wider than the phone's screen (content a scroll region clips is reachable inside it).
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { capturePage } from './browser.js';

export const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

export interface PageCheckOptions {
  /** Tables must fit the phone's screen: a `.table-wrap` that scrolls sideways is a finding too. */
  tablesFit?: boolean;
  /** Close every notice first, so none covers what the screenshots and axe look at. */
  dismissToasts?: boolean;
}

/** Elements wider than the screen, or reaching past its sides (visually hidden text excepted), as selectors. */
function tooWide(page: Page, tablesFit: boolean): Promise<string[]> {
  return page.evaluate((tablesFit) => {
    const width = document.documentElement.clientWidth;
    const found: string[] = [];
    for (const element of document.body.querySelectorAll('*')) {
      const box = element.getBoundingClientRect();
      if (box.width <= 1 || element.closest('.sr-only')) continue;
      if (element.parentElement?.closest('.table-wrap, .json, .events-scroll, .chart-scroll')) continue;
      if (box.width > width + 0.5 || box.right > width + 0.5 || box.left < -0.5)
        found.push(
          `${element.tagName.toLowerCase()}.${[...element.classList].join('.')} ${Math.round(box.left)}..${Math.round(box.right)}`,
        );
    }
    if (tablesFit)
      for (const region of document.querySelectorAll('.table-wrap')) {
        if (region.scrollWidth > region.clientWidth + 1)
          found.push(`scrolling ${region.getAttribute('aria-label')}: ${region.scrollWidth} > ${region.clientWidth}`);
      }
    return found;
  }, tablesFit);
}

/** Screenshots and axe at both widths, and nothing wider than the phone's screen; back at desktop size after. */
export async function checkPage(page: Page, name: string, options: PageCheckOptions = {}): Promise<void> {
  if (options.dismissToasts) {
    const close = page.getByRole('button', { name: /^Dismiss: / });
    while ((await close.count()) > 0) await close.first().click();
  }
  await capturePage(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  expect(await tooWide(page, options.tablesFit ?? false), name).toEqual([]);
  await capturePage(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}
