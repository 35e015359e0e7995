/**
 * OAuth sign-in of an MCP client, the whole flow with a client nobody here wrote: the official
 * MCP SDK's client and its OAuth client provider against the real service, headless Chromium as
 * the person. The client discovers the service as its authorization server, registers, and its
 * `redirectToAuthorization` opens the authorization address in Chromium; the console asks the
 * operator to sign in first (test wallet, embedded profile), then shows the consent page, where the
 * test approves; the code reaches the client's loopback callback and finishes the flow; the client
 * lists and calls tools with its token. Revoking the grant on the agent's keys page makes the next
 * call fail with 401. Screenshots and axe of the consent page and the grants at 1280 and 390 px.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/browser.js';
import { checkPage, DESKTOP } from '../support/console-page-checks.js';
import { freePort } from '../support/free-port.js';
import { startTestService, type TestService } from '../support/test-service.js';

const CLIENT_NAME = 'Desk Assistant (e2e)';

/**
 * A desktop MCP client's loopback callback: the browser lands here with the code (or the
 * refusal) after the consent page; it answers a page saying so, as such clients do.
 */
class LoopbackCallback {
  private server: Server | undefined;
  private waiting: ((params: URLSearchParams) => void) | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', this.url);
      if (url.pathname !== '/callback') {
        response.writeHead(404).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><html lang="en"><title>Signed in</title><p>You can close this window.</p></html>');
      this.waiting?.(url.searchParams);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/callback`;
  }

  /** The query of the next callback. */
  next(): Promise<URLSearchParams> {
    return new Promise((resolve) => {
      this.waiting = resolve;
    });
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The SDK's provider interface, kept in memory; the authorization address opens in the test's Chromium page. */
class BrowserOAuthProvider implements OAuthClientProvider {
  private information: OAuthClientInformationMixed | undefined;
  private saved: OAuthTokens | undefined;
  private verifier = '';
  /** The `state` of the last authorization request, checked on the callback as a client must. */
  lastState = '';
  /** How many times the client sent the person to authorize. */
  redirects = 0;

  constructor(
    private readonly page: Page,
    readonly redirectUrl: string,
  ) {}

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state(): string {
    this.lastState = randomBytes(16).toString('hex');
    return this.lastState;
  }
  clientInformation() {
    return this.information;
  }
  saveClientInformation(information: OAuthClientInformationMixed) {
    this.information = information;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  async redirectToAuthorization(authorizationUrl: URL) {
    this.redirects += 1;
    await this.page.goto(authorizationUrl.href);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  /** The SDK drops what the server refused (a revoked grant's tokens) before it asks again. */
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    if (scope === 'all' || scope === 'client') this.information = undefined;
    if (scope === 'all' || scope === 'tokens') this.saved = undefined;
    if (scope === 'all' || scope === 'verifier') this.verifier = '';
  }
}

let svc: TestService;
let browser: Browser;
let page: Page;
const callback = new LoopbackCallback();
let provider: BrowserOAuthProvider;
let agent: { agentId: string; publicId: string };
let mcp: McpClient | undefined;
const mcpUrl = () => new URL(`${svc.url}/mcp/${agent.publicId}`);

beforeAll(async () => {
  // The service's issuer and the agent's MCP URL are its PUBLIC_URL: the client must reach it there.
  const port = await freePort();
  const env = { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` };
  [svc, browser] = await Promise.all([startTestService({ env }), launchChromium(), callback.start()]);
  page = await browser.newPage({ viewport: DESKTOP });
  page.setDefaultTimeout(15_000);
  provider = new BrowserOAuthProvider(page, callback.url);
}, 60_000);
afterAll(async () => {
  await mcp?.close().catch(() => undefined);
  await browser?.close();
  await callback.stop();
  await svc?.stop();
});

describe('console: OAuth sign-in of an MCP client (the SDK client, Chromium on the consent page)', () => {
  it('the operator has an agent (test wallet), then signs out', async () => {
    await page.goto(`${svc.url}/agents`);
    await page.getByRole('button', { name: 'Use a test wallet' }).click();
    await page.getByRole('heading', { name: 'Agents', level: 1 }).waitFor();
    await page.getByLabel('Name').fill('OAuth agent');
    await page.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('link', { name: 'OAuth agent' }).click();
    await page.getByRole('heading', { name: 'OAuth agent', level: 1 }).waitFor();
    const agentId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2] ?? '');
    const endpoint = (await page.locator('code', { hasText: '/mcp/' }).textContent()) ?? '';
    agent = { agentId, publicId: endpoint.replace('/mcp/', '') };
    expect(agent.agentId).not.toBe('');
    expect(agent.publicId).not.toBe('');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Use a test wallet' }).waitFor();
  });

  it("the SDK client's first call asks the person to authorize: the console has them sign in, then shows the request", async () => {
    const first = new McpClient({ name: 'oauth-e2e', version: '1.0.0' });
    const refused = first.connect(new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider }));
    await expect(refused).rejects.toBeInstanceOf(UnauthorizedError);
    expect(provider.redirects).toBe(1);

    // The authorize route sent the browser to the console's consent address; signed out, sign-in comes first there.
    expect(new URL(page.url()).pathname).toBe('/oauth/consent');
    const consentAddress = page.url();
    await page.getByText('An app asks for access to one of your agents. Sign in to review the request.').waitFor();
    await page.getByRole('button', { name: 'Use a test wallet' }).click();
    const heading = page.getByRole('heading', { level: 1, name: `${CLIENT_NAME} wants to act on your agent` });
    await heading.waitFor();
    expect(page.url()).toBe(consentAddress);
    expect(await page.getByTestId('redirect-host').textContent()).toBe(new URL(callback.url).host);
    // The client asked for this agent's MCP address: the agent is fixed.
    expect(await page.getByText(`/mcp/${agent.publicId}`).isVisible()).toBe(true);
    expect(await page.getByRole('combobox', { name: 'Agent' }).count()).toBe(0);
    await checkPage(page, 'oauth-consent');
  });

  it('Approve sends the code to the client, which lists and calls tools with its token', async () => {
    await page.getByRole('radio', { name: /^trade/ }).check();
    const arrived = callback.next();
    await page.getByRole('button', { name: 'Approve' }).click();
    const params = await arrived;
    expect(params.get('state')).toBe(provider.lastState);
    const code = params.get('code') ?? '';
    expect(code).not.toBe('');
    await page.getByText('You can close this window.').waitFor();

    const transport = new StreamableHTTPClientTransport(mcpUrl(), { authProvider: provider });
    await transport.finishAuth(code);
    expect(provider.tokens()?.access_token).toBeTruthy();
    mcp = new McpClient({ name: 'oauth-e2e', version: '1.0.0' });
    await mcp.connect(transport);
    const names = (await mcp.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('agent_status');
    // Trade, as approved: manage tools stay hidden.
    expect(names).not.toContain('agent_pause');
    const status = await mcp.callTool({ name: 'agent_status', arguments: {} });
    expect(status.isError).toBeFalsy();
    expect(status.structuredContent).toMatchObject({ agentId: agent.agentId });
  });

  it("the grant shows beside the agent's keys; revoking it there makes the next call fail with 401", async () => {
    await page.goto(`${svc.url}/agents/${encodeURIComponent(agent.agentId)}`);
    const row = page
      .getByRole('table', { name: 'Apps signed in to this agent with OAuth' })
      .getByRole('row', { name: new RegExp(CLIENT_NAME.replace(/[()]/g, '\\$&')) });
    await row.waitFor();
    expect(await row.textContent()).toContain(new URL(callback.url).host);
    expect(await row.getByRole('cell', { name: 'trade', exact: true }).count()).toBe(1);
    await checkPage(page, 'oauth-grants');

    await page.getByRole('button', { name: `Revoke ${CLIENT_NAME}` }).click();
    const confirm = page.getByRole('dialog', { name: `Revoke ${CLIENT_NAME}?` });
    await confirm.getByRole('button', { name: 'Revoke access' }).click();
    await confirm.waitFor({ state: 'detached' });
    await row.waitFor({ state: 'detached' });

    // The token the client holds is refused at once, with the challenge that points to the resource metadata.
    const accessToken = provider.tokens()?.access_token ?? '';
    const refused = await fetch(mcpUrl(), {
      method: 'POST',
      headers: {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer .*resource_metadata="[^"]+"/);

    // The SDK client's next call fails too: its refresh token went with the grant, so it must ask the person again.
    await expect(mcp!.callTool({ name: 'agent_status', arguments: {} })).rejects.toThrow();
    expect(provider.redirects).toBe(2);
    await page.getByRole('heading', { level: 1, name: `${CLIENT_NAME} wants to act on your agent` }).waitFor();
  });
});
