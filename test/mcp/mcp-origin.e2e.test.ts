/**
 * Origin validation of the MCP endpoint and its event streams (src/mcp/mcp-origin.ts): a
 * browser origin outside PUBLIC_URL's and MCP_ALLOWED_ORIGINS is refused with 403 before
 * its credential is looked at; a request without Origin (every non-browser client) works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentFixture, openSse, openWs, type AgentFixture } from '../support/events-harness.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';

const LISTED = 'https://inspector.example.com';
const ping = { jsonrpc: '2.0', id: 7, method: 'ping' };

describe('Origin on MCP and event requests (e2e)', () => {
  let svc: TestService;
  let agent: AgentFixture;
  let secret: string;
  beforeAll(async () => {
    svc = await startTestService({ env: { MCP_ALLOWED_ORIGINS: `${LISTED}, https://other.example.com` } });
    agent = await agentFixture(svc.url);
    ({ secret } = await agent.newKey());
  });
  afterAll(() => svc.stop());

  it('refuses a foreign browser origin on POST /mcp with 403 -32003 `Origin not allowed`, credential or not, and no CORS headers', async () => {
    for (const headers of [{ ...bearer(secret), origin: 'http://evil.test' }, { origin: 'http://evil.test' }, { origin: 'null' }]) {
      const answer = await rawRpc(svc.url, agent.publicId, ping, headers);
      expect(answer.status).toBe(403);
      expect(answer.body).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32003, message: 'Origin not allowed' } });
      expect(answer.headers.get('access-control-allow-origin')).toBeNull();
    }
    // A DNS-rebinding page names the service's address as its own host: Host and Origin agree, still refused.
    const host = new URL(svc.url).host;
    const rebound = await rawRpc(svc.url, agent.publicId, ping, { ...bearer(secret), origin: `http://${host}` });
    expect(rebound.status).toBe(403);
  });

  it('refuses the preflight of a foreign origin and answers that of an allowed one', async () => {
    const preflight = (origin: string) =>
      fetch(`${svc.url}/mcp/${agent.publicId}`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
      });
    expect((await preflight('http://evil.test')).status).toBe(403);
    const allowed = await preflight(LISTED);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe('*');
  });

  it("serves PUBLIC_URL's origin, the configured ones (any case, default port) and requests without Origin", async () => {
    for (const origin of [PUBLIC_URL, `${LISTED}:443`, 'HTTPS://Other.Example.com', undefined]) {
      const answer = await rawRpc(svc.url, agent.publicId, ping, { ...bearer(secret), ...(origin ? { origin } : {}) });
      expect(answer.status, String(origin)).toBe(200);
      expect(answer.body).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    }
  });

  it('refuses a foreign origin on the SSE stream (403, REST envelope) and serves an allowed one', async () => {
    const refused = await openSse(svc.url, agent.publicId, { secret, headers: { origin: 'http://evil.test' } });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ statusCode: 403, message: 'Origin not allowed' });
    const served = await openSse(svc.url, agent.publicId, { secret, headers: { origin: PUBLIC_URL } });
    expect(served.status).toBe(200);
    served.close();
  });

  it('refuses a foreign origin on the WebSocket handshake (403) and serves an allowed one', async () => {
    const refused = await openWs(svc.url, agent.publicId, { secret, origin: 'http://evil.test' });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused).toMatchObject({ status: 403, body: { message: 'Origin not allowed' } });
    const served = await openWs(svc.url, agent.publicId, { secret, origin: LISTED });
    expect(served.ok).toBe(true);
    if (served.ok) served.client.ws.terminate();
  });
});

describe('MCP_ALLOWED_ORIGINS=* (e2e)', () => {
  let svc: TestService;
  afterAll(() => svc.stop());

  it('serves any browser origin', async () => {
    svc = await startTestService({ env: { MCP_ALLOWED_ORIGINS: '*' } });
    const agent = await agentFixture(svc.url);
    const { secret } = await agent.newKey();
    const answer = await rawRpc(svc.url, agent.publicId, ping, { ...bearer(secret), origin: 'http://anywhere.test' });
    expect(answer.status).toBe(200);
  });
});

describe('MCP_ALLOWED_ORIGINS', () => {
  it('takes a comma-separated list of origins, or *', () => {
    expect(loadConfig({ MCP_ALLOWED_ORIGINS: ' https://a.example, http://b.example:8080 ' }).mcpAllowedOrigins).toEqual([
      'https://a.example',
      'http://b.example:8080',
    ]);
    expect(loadConfig({}).mcpAllowedOrigins).toEqual([]);
  });

  it.each(['https://a.example/path', 'a.example', 'ftp://a.example'])('refuses %s naming the variable', (value) => {
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: value })).toThrow(ConfigError);
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: value })).toThrow(/MCP_ALLOWED_ORIGINS:/);
  });
});
