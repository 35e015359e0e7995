/**
 * MCP Apps against the real service: the views are `ui://` resources served by
 * `resources/list` and `resources/read` (credential and scope as the tools), named on the
 * tools that produce them, and declared in the capabilities; then Chromium plays the host:
 * it loads a view's HTML in a sandboxed iframe, answers `ui/initialize`, posts a tool result
 * through the Apps bridge and sees the chart and the checks drawn, with hostile text shown as text.
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { EXTENSION_ID, RESOURCE_MIME_TYPE, RESOURCE_URI_META_KEY } from '@modelcontextprotocol/ext-apps/server';
import type { Browser, Frame, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

const PORTFOLIO = 'ui://trading/portfolio.html';
const CHECKS = 'ui://trading/safety-checks.html';
const MIME = RESOURCE_MIME_TYPE;
const HOSTILE = '<img src=x onerror="window.parent.__pwned=1">';

describe('MCP Apps views (e2e)', () => {
  let svc: TestService;
  let agent: { agentId: string; publicId: string };
  let readKey: { secret: string };
  let client: McpClient;
  let browser: Browser;

  beforeAll(async () => {
    svc = await startTestService();
    const operator = await Operator.signIn(svc);
    agent = await operator.agent('apps-agent');
    readKey = await operator.agentKey(agent.agentId, 'read');
    client = new McpClient({ name: 'apps-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${svc.url}/mcp/${agent.publicId}`), {
        requestInit: { headers: bearer(readKey.secret) },
      }),
    );
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await browser?.close();
    await svc?.stop();
  });

  it('declares resources and the Apps extension in the capabilities', () => {
    expect(client.getServerCapabilities()).toMatchObject({
      resources: { listChanged: false },
      extensions: { [EXTENSION_ID]: { mimeTypes: [MIME] } },
    });
  });

  it('names the view on the tools that produce it (both the nested and the flat key), and on no other', async () => {
    const { tools } = await client.listTools();
    const meta = (name: string) => tools.find((tool) => tool.name === name)?._meta;
    for (const name of ['trading_portfolio_summary', 'trading_portfolio_history'])
      expect(meta(name)).toEqual({ ui: { resourceUri: PORTFOLIO }, [RESOURCE_URI_META_KEY]: PORTFOLIO });
    expect(meta('trading_preflight')).toEqual({ ui: { resourceUri: CHECKS }, [RESOURCE_URI_META_KEY]: CHECKS });
    expect(meta('agent_status')).toBeUndefined();
  });

  it('a read key lists and reads both views: self-contained HTML of the Apps MIME type', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => [resource.uri, resource.mimeType])).toEqual([
      [PORTFOLIO, MIME],
      [CHECKS, MIME],
    ]);
    for (const uri of [PORTFOLIO, CHECKS]) {
      const { contents } = await client.readResource({ uri });
      expect(contents).toHaveLength(1);
      const [view] = contents as [{ uri: string; mimeType: string; text: string }];
      expect(view).toMatchObject({ uri, mimeType: MIME });
      expect(view.text.startsWith('<!DOCTYPE html>')).toBe(true);
      // Nothing fetched from anywhere: no external script, style, image or frame.
      expect(view.text).not.toMatch(/\s(src|href)=/i);
      expect(view.text).not.toMatch(/innerHTML|insertAdjacentHTML|document\.write/);
    }
    await expect(client.listResourceTemplates()).resolves.toMatchObject({ resourceTemplates: [] });
  });

  it('refuses an unknown view (-32002), a missing credential (401), and a mismatched Mcp-Name on 2026-07-28 (400)', async () => {
    const unknown = await rawRpc(
      svc.url,
      agent.publicId,
      { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'ui://trading/nope.html' } },
      bearer(readKey.secret),
    );
    expect(unknown.body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32002, message: 'Resource not found', data: { uri: 'ui://trading/nope.html' } },
    });
    const anonymous = await rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: 2, method: 'resources/list' });
    expect(anonymous.status).toBe(401);
    const envelope = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const headers = { ...bearer(readKey.secret), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/read' };
    const body = { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: PORTFOLIO, _meta: envelope } };
    const mismatched = await rawRpc(svc.url, agent.publicId, body, { ...headers, 'mcp-name': CHECKS });
    expect(mismatched.status).toBe(400);
    expect(mismatched.body.error.code).toBe(-32020);
    const routed = await rawRpc(svc.url, agent.publicId, body, { ...headers, 'mcp-name': PORTFOLIO });
    expect(routed.body.result.contents[0]).toMatchObject({ uri: PORTFOLIO, mimeType: MIME });
    const list = await rawRpc(
      svc.url,
      agent.publicId,
      { jsonrpc: '2.0', id: 4, method: 'resources/list', params: { _meta: envelope } },
      { ...headers, 'mcp-method': 'resources/list' },
    );
    expect(list.body.result).toMatchObject({ ttlMs: expect.any(Number), cacheScope: 'private' });
    expect(list.body.result.resources).toHaveLength(2);
  });

  /** A page acting as an Apps host: the view in a sandboxed iframe, `result` posted once it is initialized. */
  async function host(uri: string, result: unknown, proxied: Record<string, unknown> = {}): Promise<{ page: Page; view: Frame }> {
    const { contents } = await client.readResource({ uri });
    const html = (contents[0] as { text: string }).text;
    const page = await browser.newPage();
    await page.setContent(
      '<!DOCTYPE html><html><body><iframe id="view" sandbox="allow-scripts" width="640" height="600"></iframe></body></html>',
    );
    await page.evaluate(
      ({ html, result, proxied }) => {
        const frame = document.getElementById('view') as HTMLIFrameElement;
        const log: unknown[] = [];
        (window as unknown as { __log: unknown[] }).__log = log;
        window.addEventListener('message', (event) => {
          if (event.source !== frame.contentWindow) return;
          const message = event.data;
          log.push(message);
          const reply = (payload: object) => frame.contentWindow!.postMessage({ jsonrpc: '2.0', id: message.id, ...payload }, '*');
          if (message.method === 'ui/initialize')
            reply({
              result: {
                protocolVersion: message.params.protocolVersion,
                hostInfo: { name: 'test-host', version: '1.0.0' },
                hostCapabilities: { serverTools: {} },
                hostContext: { theme: 'light', displayMode: 'inline' },
              },
            });
          else if (message.method === 'ui/notifications/initialized')
            frame.contentWindow!.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/tool-result', params: result }, '*');
          else if (message.method === 'tools/call') {
            const answer = proxied[message.params.name];
            reply(answer ? { result: answer } : { error: { code: -32601, message: 'Method not found' } });
          }
        });
        frame.srcdoc = html;
      },
      { html, result, proxied },
    );
    const view = page.frames().find((frame) => frame !== page.mainFrame());
    if (!view) throw new Error('no view frame');
    return { page, view };
  }

  it('Chromium host: the portfolio view shows the positions and the value chart from the proxied history, hostile text as text', async () => {
    const summary = await client.callTool({ name: 'trading_portfolio_summary', arguments: {} });
    expect(summary.isError).toBeFalsy();
    const structured = summary.structuredContent as Record<string, unknown>;
    const result = {
      ...summary,
      structuredContent: {
        ...structured,
        positions: [{ chain: 'solana', token: 'So111', symbol: HOSTILE, amount: '1.5', valueUsd: '210.00' }],
      },
    };
    const history = {
      content: [{ type: 'text', text: 'history' }],
      structuredContent: {
        points: [
          {
            at: '2026-11-30T00:00:00.000Z',
            valueUsd: '100.00',
            costBasisUsd: '0.00',
            realizedPnlUsd: '0.00',
            unrealizedPnlUsd: '0.00',
            reason: 'periodic',
          },
          {
            at: '2026-12-01T00:00:00.000Z',
            valueUsd: '150.00',
            costBasisUsd: '0.00',
            realizedPnlUsd: '0.00',
            unrealizedPnlUsd: '0.00',
            reason: 'change',
          },
          {
            at: '2026-12-02T00:00:00.000Z',
            valueUsd: '210.00',
            costBasisUsd: '0.00',
            realizedPnlUsd: '0.00',
            unrealizedPnlUsd: '0.00',
            reason: 'periodic',
          },
        ],
        from: '2026-11-25T00:00:00.000Z',
        to: '2026-12-02T00:00:00.000Z',
        intervalSeconds: 3600,
        asOf: '2026-12-02T00:00:00.000Z',
      },
    };
    const { page, view } = await host(PORTFOLIO, result, { trading_portfolio_history: history });
    try {
      await view.waitForSelector('svg.value-chart polyline', { timeout: 10_000 });
      expect(await view.textContent('h1')).toBe(structured.name);
      expect(await view.textContent('.total')).toBe(`Total value $${structured.valueUsd}`);
      expect(await view.textContent('td.token')).toBe(HOSTILE);
      expect(await view.locator('img').count()).toBe(0);
      expect(await view.locator('svg.value-chart circle').count()).toBe(3);
      const line = (await view.getAttribute('svg.value-chart polyline', 'points'))!.split(' ');
      expect(line).toHaveLength(3);
      // Higher values are drawn higher (smaller y).
      const ys = line.map((point) => Number(point.split(',')[1]));
      expect(ys[0]).toBeGreaterThan(ys[1]!);
      expect(ys[1]).toBeGreaterThan(ys[2]!);
      expect(await view.textContent('.chart p')).toBe('3 readings · low $100.00 · high $210.00');
      const log = await page.evaluate(() => (window as unknown as { __log: { method?: string; params?: unknown }[] }).__log);
      expect(log.find((message) => message.method === 'ui/initialize')?.params).toMatchObject({
        protocolVersion: '2026-01-26',
        appInfo: { name: 'portfolio-view' },
      });
      expect(log.some((message) => message.method === 'ui/notifications/size-changed')).toBe(true);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
    } finally {
      await page.close();
    }
  });

  it('Chromium host: the safety-checks view shows each check passed ✓ and the refusal with its message', async () => {
    const preflight = await client.callTool({
      name: 'trading_preflight',
      arguments: { chain: 'solana', inputToken: 'SOL', outputToken: 'USDC', amount: '1000000' },
    });
    const structured = preflight.structuredContent as { passed: boolean; checks: { check: string; verdict: string; message?: string }[] };
    // A read key may not call the swap: the first check refuses, word for word as the swap would.
    const refused = structured.checks.find((check) => check.verdict === 'refused')!;
    expect(refused.message).toBe('Scope insufficient: required trade, got read');
    const { page, view } = await host(CHECKS, preflight);
    try {
      await view.waitForSelector('section.checks li', { timeout: 10_000 });
      expect(await view.textContent('h1')).toBe('✗ The trade would be refused');
      expect(await view.textContent(`li[data-check="${refused.check}"] .message`)).toBe(refused.message);
      expect(await view.locator('li.not-run').count()).toBe(structured.checks.filter((check) => check.verdict === 'not_run').length);
    } finally {
      await page.close();
    }
    // A swap's order: every check it passed; and a swap's refusal with its message, hostile text kept as text.
    const order = {
      content: [{ type: 'text', text: 'order' }],
      structuredContent: {
        order_id: 'ord_1',
        chain: 'solana',
        side: 'swap',
        inputSymbol: 'SOL',
        outputSymbol: HOSTILE,
        amountIn: '1000000',
        expectedOut: '150000',
        status: 'filled',
        checks: ['trading_enabled', 'kill_switch', 'balance'],
      },
    };
    const placed = await host(CHECKS, order);
    try {
      await placed.view.waitForSelector('section.checks li', { timeout: 10_000 });
      expect(await placed.view.textContent('h1')).toBe('✓ Order filled');
      expect(await placed.view.locator('li.passed').allTextContents()).toEqual(['✓ trading enabled', '✓ kill switch', '✓ balance']);
      expect(await placed.view.locator('img').count()).toBe(0);
    } finally {
      await placed.page.close();
    }
    const refusal = {
      content: [{ type: 'text', text: `Token is blacklisted: ${HOSTILE}` }],
      structuredContent: { code: 'TOKEN_BLACKLISTED', message: `Token is blacklisted: ${HOSTILE}`, retryable: false },
      isError: true,
    };
    const refusedSwap = await host(CHECKS, refusal);
    try {
      await refusedSwap.view.waitForSelector('section.refusal', { timeout: 10_000 });
      expect(await refusedSwap.view.textContent('section.refusal h2')).toBe('✗ Refused');
      expect(await refusedSwap.view.textContent('section.refusal .message')).toBe(`Token is blacklisted: ${HOSTILE}`);
      expect(await refusedSwap.view.textContent('section.refusal .code')).toBe('TOKEN_BLACKLISTED');
      expect(await refusedSwap.view.locator('img').count()).toBe(0);
    } finally {
      await refusedSwap.page.close();
    }
  });
});
