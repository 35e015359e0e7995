/**
 * An identity token's life on a running service with a driven clock: its event stream ends
 * when it is revoked; at `exp` it is refused (401 `Identity token validation failed`), its
 * stream ends and the scheduled expiry moves its actor to `expired`.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { openSse, until, type SseStream } from '../support/events-harness.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';

const ONBOARD = '/api/public/erc8004/onboarding';

describe('identity token lifecycle (driven clock)', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  let client: Client;
  const open: SseStream[] = [];
  beforeAll(async () => {
    svc = await startTestService({ clock });
    client = new Client(svc.url);
  });
  afterEach(() => {
    for (const stream of open.splice(0)) stream.close();
  });
  afterAll(() => svc.stop());

  async function onboard(wallet: ReturnType<typeof evmWallet>, scope: 'read' | 'trade') {
    const { body: challenge } = await client.post('/api/nest/auth/evm/nonce', {});
    const message = wallet.message(challenge.nonce, new Date(clock.now()));
    const { status, body } = await client.post(`${ONBOARD}/siwe`, { message, signature: await wallet.sign(message), scope });
    expect(status).toBeLessThan(300);
    return body as { publicId: string; accessToken: string; jti: string; expiresIn: number };
  }
  const list = (token: { publicId: string; accessToken: string }) =>
    rawRpc(svc.url, token.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(token.accessToken));
  const actorState = async (jti: string) =>
    (
      await (
        await fetch(`${svc.url}/api/nest/ops/actors/identity-token/${jti}`, { headers: { authorization: `Bearer ${svc.opsToken}` } })
      ).json()
    ).state;

  it('revoking the token ends its event stream', async () => {
    const token = await onboard(evmWallet(), 'read');
    const stream = await openSse(svc.url, token.publicId, { secret: token.accessToken });
    open.push(stream);
    expect(stream.status).toBe(200);
    expect((await client.post(`${ONBOARD}/tokens/revoke`, { token: token.accessToken })).status).toBe(200);
    await until(() => stream.ended, 'the revoked stream to end');
    expect(stream.comments()).toContain('stream closed: revoked');
    expect(await actorState(token.jti)).toBe('revoked');
  });

  it('a trade token lives 300 s: then 401 Identity token validation failed, its stream ends, its actor is expired', async () => {
    const wallet = evmWallet();
    const token = await onboard(wallet, 'trade');
    expect(token.expiresIn).toBe(300);
    expect((await list(token)).status).toBe(200);
    const stream = await openSse(svc.url, token.publicId, { secret: token.accessToken });
    open.push(stream);
    await clock.advance(299_000);
    expect((await list(token)).status).toBe(200);
    await clock.advance(1_000);
    const refused = await list(token);
    expect(refused.status).toBe(401);
    expect(JSON.stringify(refused.body)).toContain('Identity token validation failed');
    await until(() => stream.ended, 'the expired stream to end');
    expect(stream.comments()).toContain('stream closed: expired');
    // The scheduled `token.expire` (due at exp, fired by the advance) moves the actor, asynchronously.
    let state = await actorState(token.jti);
    for (let i = 0; i < 50 && state !== 'expired'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      state = await actorState(token.jti);
    }
    expect(state).toBe('expired');
    // Revoking an expired token: it is no longer a valid token.
    expect((await client.post(`${ONBOARD}/tokens/revoke`, { token: token.accessToken })).status).toBe(401);
  });
});
