/**
 * Checks of a console page in Chromium: screenshots and axe at 1280 × 800 and 390 × 844, and no
 * element wider than the phone's screen (content a scroll region clips is reachable inside it).
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { capturePage } from './browser.js';

export const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** Elements wider than the screen, or reaching past its sides (visually hidden text excepted), as selectors. */
function tooWide(page: Page): Promise<string[]> {
  return page.evaluate(() => {
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
    return found;
  });
}

/** Screenshots and axe at both widths, and nothing wider than the phone's screen; back at desktop size after. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await capturePage(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  expect(await tooWide(page), name).toEqual([]);
  await capturePage(page, `${name}-phone`);
  await page.setViewportSize(DESKTOP);
}
