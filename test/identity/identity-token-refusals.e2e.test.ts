/**
 * The MCP and agent errors on every route that takes identity tokens (`/mcp/:publicId`, its SSE and
 * WebSocket streams, the agent wallet routes): a bearer shaped like a JWT that does not verify
 * is 401 `Identity token validation failed`, not `Unauthorized`; so is a token of ours whose
 * `iat` lies more than 60 s ahead of the service's clock. The future tokens are real ones,
 * issued by the service while its clock ran ahead, then presented after a restart on the same
 * data with the clock back at the present.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, openWs } from '../support/events-harness.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';

const INVALID = 'Identity token validation failed';
/** The HS256 sample token of jwt.io: a JWT, but none of ours. */
const FOREIGN_JWT =
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c';

describe('identity token refusals (e2e)', () => {
  let svc: TestService;
  const tokens: Record<'ahead30' | 'ahead120', { publicId: string; accessToken: string }> = {} as never;

  async function onboard(client: Client, clock: ManualClock) {
    const wallet = evmWallet();
    const { body } = await client.post('/api/nest/auth/evm/nonce', {});
    const message = wallet.message(body.nonce as string, new Date(clock.now()));
    const onboarded = await client.post('/api/public/erc8004/onboarding/siwe', {
      message,
      signature: await wallet.sign(message),
      scope: 'trade',
    });
    expect(onboarded.status).toBe(201);
    return onboarded.body as { publicId: string; accessToken: string };
  }

  beforeAll(async () => {
    const ahead = new ManualClock(Date.now() + 30_000);
    const early = await startTestService({ clock: ahead });
    tokens.ahead30 = await onboard(new Client(early.url), ahead);
    await ahead.advance(90_000);
    tokens.ahead120 = await onboard(new Client(early.url), ahead);
    await early.service.stop();
    svc = await startTestService({ clock: new ManualClock(Date.now()), dataDir: early.dataDir });
  });
  afterAll(() => svc.stop());

  const listTools = (publicId: string, token: string) =>
    rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(token));
  const balance = async (token: string) => {
    const response = await fetch(`${svc.url}/api/nest/agents/wallet/balance`, { headers: bearer(token) });
    return { status: response.status, body: await response.json() };
  };

  it('a JWT that does not verify: 401 Identity token validation failed on MCP, its streams and the agent wallet routes', async () => {
    const { publicId } = tokens.ahead30;
    for (const token of ['eyJ.bad.token', FOREIGN_JWT]) {
      const mcp = await listTools(publicId, token);
      expect(mcp.status).toBe(401);
      expect(JSON.stringify(mcp.body)).toContain(INVALID);
      const sse = await openSse(svc.url, publicId, { secret: token });
      expect(sse).toMatchObject({ status: 401, body: { message: INVALID } });
      const ws = await openWs(svc.url, publicId, { secret: token });
      expect(ws).toMatchObject({ ok: false, status: 401, body: { message: INVALID } });
      expect(await balance(token)).toMatchObject({ status: 401, body: { message: INVALID } });
    }
    // Not a JWT at all: the plain refusal of a credential it is not.
    expect(await balance('not-a-token')).toMatchObject({ status: 401, body: { message: 'Unauthorized' } });
  });

  it('a token issued more than 60 s ahead of the clock is refused; 30 s ahead is clock drift and passes', async () => {
    expect((await listTools(tokens.ahead30.publicId, tokens.ahead30.accessToken)).status).toBe(200);
    expect((await balance(tokens.ahead30.accessToken)).status).toBe(200);
    const { publicId, accessToken } = tokens.ahead120;
    const refused = await listTools(publicId, accessToken);
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).toContain(INVALID);
    expect(await balance(accessToken)).toMatchObject({ status: 401, body: { message: INVALID } });
    expect(await openSse(svc.url, publicId, { secret: accessToken })).toMatchObject({ status: 401, body: { message: INVALID } });
  });
});
