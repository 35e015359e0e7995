import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CSP } from '../../src/http/openapi/docs-page.js';
import { launchChromium } from '../support/browser.js';
import { startTestService, type TestService } from '../support/test-service.js';

const SHOTS = join(import.meta.dirname, 'screenshots');

describe('the API docs page in a real browser (headless chromium)', () => {
  let svc: TestService;
  let browser: Browser;
  beforeAll(async () => {
    svc = await startTestService();
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await svc?.stop();
  });

  /** The page as a person opens it, with every console error, page error, CSP violation and request it made. */
  async function openDocs(): Promise<{ page: Page; errors: string[]; requests: string[] }> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    const requests: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') errors.push(`${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
    page.on('request', (request) => requests.push(request.url()));
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) => {
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`);
      });
    });
    const response = await page.goto(`${svc.url}/api/nest/docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toBe(DOCS_CSP);
    // The document is large and the machine may be busy: rendering can take a while.
    await page.locator('.opblock-tag[data-tag="Service"]').waitFor({ timeout: 90_000 });
    return { page, errors, requests };
  }

  it('renders the routes and MCP tools by tag, Markdown as text, and expands an operation; no error, nothing from elsewhere', async () => {
    const { page, errors, requests } = await openDocs();
    const tags = await page.locator('.opblock-tag').evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-tag')));
    expect(tags).toEqual(expect.arrayContaining(['Auth', 'Agents', 'Trading', 'MCP tools', 'ERC-8004', 'Service']));
    // Markdown renders: the tag's `code` spans are code elements, no backtick shows.
    const legacy = page.locator('.opblock-tag[data-tag="Legacy bots"]');
    expect(await legacy.locator('code').first().textContent()).toBe('Deprecation: true');
    expect(await legacy.textContent()).not.toContain('`');

    // An MCP tool is its own operation: opening it shows the tools/call body with the tool's arguments.
    await page.locator('.opblock-tag[data-tag="MCP tools"]').click();
    const tool = page.locator('#operations-MCP_tools-mcp_trading_portfolio_summary');
    await tool.locator('.opblock-summary-control').click();
    await tool.locator('.opblock-body').waitFor();
    const body = await tool.locator('.opblock-body').textContent();
    expect(body).toContain('tools/call');
    expect(body).toContain('trading_portfolio_summary');
    // A REST route beside it, with its schema shown as a model, not as raw JSON.
    await page.locator('.opblock-tag[data-tag="Agents"]').click();
    const route = page.locator('#operations-Agents-agent_trading_set');
    await route.locator('.opblock-summary-control').click();
    await route.locator('.opblock-body').waitFor();
    expect(await route.locator('.opblock-body').textContent()).toContain('enabled');

    mkdirSync(SHOTS, { recursive: true });
    await tool.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: join(SHOTS, 'docs-mcp-tool.png') });
    expect(errors).toEqual([]);
    expect(requests.filter((url) => !url.startsWith(`${svc.url}/`) && !url.startsWith('data:'))).toEqual([]);
    await page.close();
  }, 180_000);

  it('serves the renderer from the service with caching, and nothing for other names', async () => {
    const script = await fetch(`${svc.url}/api/nest/docs/assets/swagger-ui-bundle.js`);
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    const etag = script.headers.get('etag');
    expect(etag).toMatch(/^"/);
    const again = await fetch(`${svc.url}/api/nest/docs/assets/swagger-ui-bundle.js`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    for (const name of ['package.json', '..%2Fpackage.json', 'index.html']) {
      expect((await fetch(`${svc.url}/api/nest/docs/assets/${name}`)).status).toBe(404);
    }
  });
});
