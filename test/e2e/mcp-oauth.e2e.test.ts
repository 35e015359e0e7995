/**
 * OAuth for MCP against the real service, driven by the official MCP SDK 2 client's OAuth
 * client provider: discovery from the 401's `resource_metadata`, dynamic registration or a
 * Client ID Metadata Document, PKCE, the consent approved by the operator's session (the
 * console's call; the browser test clicks it), the code exchange, tools listed and called
 * with the token; then refresh rotation and reuse, resource binding, revocation ending the
 * event stream, and manage needing the authenticator code.
 */
import { createServer, type Server } from 'node:http';
import {
  Client as Sdk2Client,
  exchangeAuthorization,
  refreshAuthorization,
  startAuthorization,
  StreamableHTTPClientTransport as Sdk2Transport,
  UnauthorizedError,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
} from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { codeAt, stoppedClock } from '../support/totp-codes.js';

const REDIRECT = 'http://127.0.0.1:1/callback';

/** The SDK's provider contract kept in memory, as a desktop client keeps it on disk. */
class MemoryProvider implements OAuthClientProvider {
  client: any;
  saved: any;
  verifier = '';
  discovery: OAuthDiscoveryState | undefined;
  authorizationUrl: URL | undefined;
  constructor(
    private readonly name: string,
    readonly clientMetadataUrl?: string,
  ) {}
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata() {
    return {
      client_name: this.name,
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return 'state-123';
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: any) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: any) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  discoveryState() {
    return this.discovery;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
}

describe('OAuth for MCP (e2e, MCP SDK 2 client)', () => {
  let svc: TestService;
  let operator: Operator;
  let agentA: { agentId: string; publicId: string };
  let agentB: { agentId: string; publicId: string };
  let metadataServer: Server;
  let metadataUrl: string;
  const open: Sdk2Client[] = [];

  beforeAll(async () => {
    // The service must be where its PUBLIC_URL says: the client checks the resource and the issuer against the URL it called.
    const port = await freePort();
    // A long keep-alive: on a loaded machine the SDK's fetch reused a connection the server was just closing (ECONNRESET).
    svc = await startTestService({
      env: { PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}`, HTTP_KEEP_ALIVE_TIMEOUT_MS: '60000' },
    });
    operator = await Operator.signIn(svc);
    agentA = await operator.agent('oauth-agent-a');
    agentB = await operator.agent('oauth-agent-b');
    // A client's metadata document on a loopback URL (the embedded profile allows it).
    metadataServer = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(
        JSON.stringify({
          client_id: metadataUrl,
          client_name: 'Metadata Document Client',
          redirect_uris: [REDIRECT],
          grant_types: ['authorization_code', 'refresh_token'],
          token_endpoint_auth_method: 'none',
        }),
      );
      void req;
    });
    await new Promise<void>((resolve) => metadataServer.listen(0, '127.0.0.1', resolve));
    metadataUrl = `http://127.0.0.1:${(metadataServer.address() as { port: number }).port}/client.json`;
  }, 60_000);
  afterAll(async () => {
    await Promise.all(open.map((client) => client.close()));
    metadataServer.close();
    await svc.stop();
  });

  const mcpUrl = (publicId: string) => new URL(`${svc.url}/mcp/${publicId}`);

  /** The browser's part: follow the authorization URL to the consent page, and read its authorization id. */
  async function consentPageOf(authorizationUrl: URL): Promise<string> {
    const answer = await fetch(authorizationUrl, { redirect: 'manual' });
    expect(answer.status).toBe(302);
    const consent = new URL(answer.headers.get('location')!);
    expect(`${consent.origin}${consent.pathname}`).toBe(`${svc.url}/oauth/consent`);
    return consent.searchParams.get('authorization_id')!;
  }

  /** The whole flow with the SDK's `auth` inside the transport: 401, discovery, registration, consent, code exchange. */
  async function signInWithSdk(provider: MemoryProvider, agent: { agentId: string; publicId: string }, scope = 'trade') {
    const first = new Sdk2Client({ name: 'oauth-e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    const transport = new Sdk2Transport(mcpUrl(agent.publicId), { authProvider: provider });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationId = await consentPageOf(provider.authorizationUrl!);
    const view = await operator.client.get(`/api/nest/oauth/authorizations/${authorizationId}`);
    expect(view.status).toBe(200);
    const consent = await operator.client.post('/api/nest/oauth/consent', { authorizationId, agentId: agent.agentId, scope });
    expect(consent.status).toBe(200);
    const callback = new URL(consent.body.redirectTo);
    expect(callback.searchParams.get('state')).toBe('state-123');
    await transport.finishAuth(callback.searchParams);
    return { view: view.body, authorizationId };
  }

  async function connect(provider: MemoryProvider, publicId: string): Promise<Sdk2Client> {
    const client = new Sdk2Client({ name: 'oauth-e2e', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
    await client.connect(new Sdk2Transport(mcpUrl(publicId), { authProvider: provider }));
    open.push(client);
    return client;
  }

  it('a 401 names the agent’s protected resource metadata, which names this service as the authorization server', async () => {
    const refused = await rawRpc(svc.url, agentA.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(refused.status).toBe(401);
    const resourceMetadata = `${svc.url}/.well-known/oauth-protected-resource/mcp/${agentA.publicId}`;
    expect(refused.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${resourceMetadata}"`);
    const prm = await (await fetch(resourceMetadata)).json();
    expect(prm).toMatchObject({ resource: `${svc.url}/mcp/${agentA.publicId}`, authorization_servers: [svc.url] });
    const as = await (await fetch(`${svc.url}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({
      issuer: svc.url,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
      registration_endpoint: `${svc.url}/oauth/register`,
    });
    const events = await fetch(`${svc.url}/mcp/${agentA.publicId}/events/sse`);
    expect(events.status).toBe(401);
    expect(events.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${resourceMetadata}"`);
  });

  it('a dynamically registered SDK client signs in, lists and calls tools; the grant is listed beside the keys and audited', async () => {
    const provider = new MemoryProvider('Registered Desktop Client');
    const { view } = await signInWithSdk(provider, agentA);
    expect(view).toMatchObject({
      clientName: 'Registered Desktop Client',
      redirectHost: '127.0.0.1:1',
      scope: 'trade',
      resource: `${svc.url}/mcp/${agentA.publicId}`,
      agent: { agentId: agentA.agentId, publicId: agentA.publicId, name: 'oauth-agent-a' },
    });
    expect(provider.client.client_id).toMatch(/^dcr_/);
    expect(provider.saved.expires_in).toBeLessThanOrEqual(900);
    const client = await connect(provider, agentA.publicId);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toContain('agent_status');
    expect(names).not.toContain('agent_pause'); // trade, not manage
    const status = await client.callTool({ name: 'agent_status', arguments: {} });
    expect(status.isError).toBe(false);
    expect(status.structuredContent).toMatchObject({ agentId: agentA.agentId });

    const listed = await operator.client.get(`/api/nest/agents/${agentA.agentId}/oauth-grants`);
    expect(listed.status).toBe(200);
    const grant = listed.body.grants.find((entry: any) => entry.clientName === 'Registered Desktop Client');
    expect(grant).toMatchObject({ clientId: provider.client.client_id, redirectHost: '127.0.0.1:1', scope: 'trade' });
    expect(grant.lastUsedAt).not.toBeNull();
    // The audit trail names the grant and the client (the trail is written once the call is answered).
    await svc.service.operations.audit.flush();
    const audit = await operator.client.get(`/api/nest/agents/${agentA.agentId}/logs?limit=100`);
    expect(audit.status).toBe(200);
    const call = audit.body.items.find(
      (entry: any) => entry.operation === 'agent_status' && entry.credentialPrefix === 'oauth:Registered Desktop Client',
    );
    expect(call).toMatchObject({ principal: { type: 'oauth-grant', id: grant.grantId }, scope: 'trade' });
  });

  it('a token for agent A is refused on agent B’s MCP URL and on REST; A’s keys still work beside it', async () => {
    const provider = new MemoryProvider('Binding Client');
    await signInWithSdk(provider, agentA, 'read');
    const token = provider.saved.access_token as string;
    const onA = await rawRpc(svc.url, agentA.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(token));
    expect(onA.status).toBe(200);
    const onB = await rawRpc(svc.url, agentB.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(token));
    expect(onB.status).toBe(401);
    expect(onB.headers.get('www-authenticate')).toContain(`/mcp/${agentB.publicId}`);
    const eventsOnB = await fetch(`${svc.url}/mcp/${agentB.publicId}/events/sse`, { headers: bearer(token) });
    expect(eventsOnB.status).toBe(401);
    const rest = await fetch(`${svc.url}/api/nest/agents/wallet/balance`, { headers: bearer(token) });
    expect(rest.status).toBe(401);
    const key = await operator.agentKey(agentA.agentId, 'read', 'beside-oauth');
    const withKey = await rawRpc(svc.url, agentA.publicId, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, bearer(key.secret));
    expect(withKey.status).toBe(200);
  });

  it('a Client ID Metadata Document client: its URL is its id, its name comes from the document', async () => {
    const provider = new MemoryProvider('ignored');
    const issuer = svc.url;
    const metadata = await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json();
    const clientInformation = { client_id: metadataUrl };
    const resource = new URL(`${svc.url}/mcp/${agentA.publicId}`);
    const { authorizationUrl, codeVerifier } = await startAuthorization(issuer, {
      metadata,
      clientInformation,
      redirectUrl: REDIRECT,
      scope: 'read',
      state: 'cimd-state',
      resource,
    });
    const authorizationId = await consentPageOf(authorizationUrl);
    const view = await operator.client.get(`/api/nest/oauth/authorizations/${authorizationId}`);
    expect(view.body).toMatchObject({ clientId: metadataUrl, clientName: 'Metadata Document Client', scope: 'read' });
    const consent = await operator.client.post('/api/nest/oauth/consent', { authorizationId, agentId: agentA.agentId, scope: 'read' });
    const code = new URL(consent.body.redirectTo).searchParams.get('code')!;
    const tokens = await exchangeAuthorization(issuer, {
      metadata,
      clientInformation,
      authorizationCode: code,
      codeVerifier,
      redirectUri: REDIRECT,
      resource,
      iss: issuer,
    });
    provider.saved = tokens;
    const client = await connect(provider, agentA.publicId);
    expect((await client.callTool({ name: 'agent_status', arguments: {} })).isError).toBe(false);
    // The same code again: refused, and the grant it made is revoked (a replayed code is a stolen one).
    await expect(
      exchangeAuthorization(issuer, {
        metadata,
        clientInformation,
        authorizationCode: code,
        codeVerifier,
        redirectUri: REDIRECT,
        resource,
        iss: issuer,
      }),
    ).rejects.toThrow(/already used/);
    const after = await rawRpc(svc.url, agentA.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(tokens.access_token));
    expect(after.status).toBe(401);
  });

  it('refresh rotates both tokens; the old refresh token used again revokes the grant', async () => {
    const provider = new MemoryProvider('Rotating Client');
    await signInWithSdk(provider, agentA, 'read');
    const metadata = provider.discovery!.authorizationServerMetadata!;
    const first = provider.saved;
    const refreshed = await refreshAuthorization(svc.url, {
      metadata,
      clientInformation: provider.client,
      refreshToken: first.refresh_token,
    });
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect(refreshed.access_token).not.toBe(first.access_token);
    // The replaced access token stops at once; the new one works.
    const old = await rawRpc(svc.url, agentA.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(first.access_token));
    expect(old.status).toBe(401);
    const fresh = await rawRpc(svc.url, agentA.publicId, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, bearer(refreshed.access_token));
    expect(fresh.status).toBe(200);
    // The spent refresh token again: a copy is in someone else's hands, so the whole grant ends.
    await expect(
      refreshAuthorization(svc.url, { metadata, clientInformation: provider.client, refreshToken: first.refresh_token }),
    ).rejects.toThrow(/already used/);
    const afterReuse = await rawRpc(
      svc.url,
      agentA.publicId,
      { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      bearer(refreshed.access_token),
    );
    expect(afterReuse.status).toBe(401);
    await expect(
      refreshAuthorization(svc.url, { metadata, clientInformation: provider.client, refreshToken: refreshed.refresh_token! }),
    ).rejects.toThrow();
  });

  it('revoking a grant in the console ends its open event stream and its token', async () => {
    const provider = new MemoryProvider('Streaming Client');
    await signInWithSdk(provider, agentA, 'read');
    const token = provider.saved.access_token as string;
    const listed = await operator.client.get(`/api/nest/agents/${agentA.agentId}/oauth-grants`);
    const grant = listed.body.grants.find((entry: any) => entry.clientName === 'Streaming Client');
    const stream = await fetch(`${svc.url}/mcp/${agentA.publicId}/events/sse`, { headers: bearer(token) });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    const revoked = await operator.client.delete(`/api/nest/agents/${agentA.agentId}/oauth-grants/${grant.grantId}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ grantId: grant.grantId, revoked: true });
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('stream closed: revoked');
    const after = await rawRpc(svc.url, agentA.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(token));
    expect(after.status).toBe(401);
    const relisted = await operator.client.get(`/api/nest/agents/${agentA.agentId}/oauth-grants`);
    expect(relisted.body.grants.map((entry: any) => entry.grantId)).not.toContain(grant.grantId);
  }, 30_000);

  it('manage needs the authenticator code; with it, manage tools are listed; a deny goes back with access_denied', async () => {
    const provider = new MemoryProvider('Manage Client');
    const first = new Sdk2Client({ name: 'oauth-e2e', version: '1.0.0' });
    const transport = new Sdk2Transport(mcpUrl(agentA.publicId), { authProvider: provider });
    await expect(first.connect(transport)).rejects.toBeInstanceOf(UnauthorizedError);
    const authorizationId = await consentPageOf(provider.authorizationUrl!);
    const without = await operator.client.post('/api/nest/oauth/consent', { authorizationId, agentId: agentA.agentId, scope: 'manage' });
    expect(without.status).toBe(403);
    expect(without.body.message).toBe('Authenticator code required for manage scope');
    const enrolled = await operator.client.post('/api/nest/auth/totp/enroll');
    const clock = stoppedClock();
    await operator.client.post('/api/nest/auth/totp/activate', { code: await codeAt(enrolled.body.secret, clock, 0) });
    const wrong = await operator.client.post('/api/nest/oauth/consent', {
      authorizationId,
      agentId: agentA.agentId,
      scope: 'manage',
      code: '000000',
    });
    expect(wrong.status).toBe(400);
    const code = await codeAt(enrolled.body.secret, clock, 1);
    const approved = await operator.client.post('/api/nest/oauth/consent', {
      authorizationId,
      agentId: agentA.agentId,
      scope: 'manage',
      code,
    });
    expect(approved.status).toBe(200);
    await transport.finishAuth(new URL(approved.body.redirectTo).searchParams);
    const client = await connect(provider, agentA.publicId);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('agent_pause');

    const denying = new MemoryProvider('Denied Client');
    const other = new Sdk2Client({ name: 'oauth-e2e', version: '1.0.0' });
    await expect(other.connect(new Sdk2Transport(mcpUrl(agentB.publicId), { authProvider: denying }))).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    const denyId = await consentPageOf(denying.authorizationUrl!);
    const denied = await operator.client.post('/api/nest/oauth/consent', { authorizationId: denyId, decision: 'deny' });
    expect(denied.status).toBe(200);
    const back = new URL(denied.body.redirectTo);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('state-123');
  });

  it('an unknown client or a redirect URI it did not register gets an error page, never a redirect', async () => {
    const unknown = await fetch(`${svc.url}/oauth/authorize?client_id=dcr_AAAAAAAAAAAAAAAAAAAAAA&response_type=code`, {
      redirect: 'manual',
    });
    expect(unknown.status).toBe(400);
    expect(unknown.headers.get('location')).toBeNull();
    // A metadata document inside the service's network is never fetched, and the page says why.
    const internal = await fetch(
      `${svc.url}/oauth/authorize?client_id=${encodeURIComponent('https://10.0.0.1/client.json')}&response_type=code`,
      { redirect: 'manual' },
    );
    expect(internal.status).toBe(400);
    expect(await internal.text()).toContain('invalid_client: client_id&#39;s host 10.0.0.1 resolves to 10.0.0.1, a private address');
    const registered = await fetch(`${svc.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Page Client', redirect_uris: [REDIRECT] }),
    });
    expect(registered.status).toBe(201);
    const { client_id } = await registered.json();
    const elsewhere = await fetch(
      `${svc.url}/oauth/authorize?client_id=${client_id}&response_type=code&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`,
      { redirect: 'manual' },
    );
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toContain('Authorization request refused');
    // A known client and redirect URI, without PKCE: back to the client with the error.
    const noPkce = await fetch(
      `${svc.url}/oauth/authorize?client_id=${client_id}&response_type=code&redirect_uri=${encodeURIComponent(REDIRECT)}&state=s`,
      {
        redirect: 'manual',
      },
    );
    expect(noPkce.status).toBe(302);
    const location = new URL(noPkce.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('s');
  });
});
