import { describe, expect, it } from 'vitest';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { processPairOnRedis } from '../support/process-pair.js';
import { Client, evmWallet } from '../support/test-service.js';

/** Two service processes on one store and one Redis: a token issued and revoked on A, used on B. */
describe('identity tokens across processes (Redis event bus)', () => {
  const pair = processPairOnRedis('identity-redis');

  it('both processes sign with one key ring; a token revoked on A is refused on B within a second', async () => {
    const onA = new Client(pair.a.url);
    const wallet = evmWallet();
    const { body: challenge } = await onA.post('/api/nest/auth/evm/nonce', {});
    const message = wallet.message(challenge.nonce);
    const issued = await onA.post('/api/public/erc8004/onboarding/siwe', { message, signature: await wallet.sign(message), scope: 'read' });
    expect(issued.status).toBe(201);
    const jwksA = await (await fetch(`${pair.a.url}/.well-known/jwks.json`)).json();
    const jwksB = await (await fetch(`${pair.b.url}/.well-known/jwks.json`)).json();
    expect(jwksB).toEqual(jwksA);

    const call = () =>
      rawRpc(pair.b.url, issued.body.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(issued.body.accessToken));
    expect((await call()).status).toBe(200); // B now holds the token in its verification cache
    const revoked = await onA.post('/api/public/erc8004/onboarding/tokens/revoke', { token: issued.body.accessToken });
    expect(revoked.status).toBe(200);
    const started = Date.now();
    let answer = await call();
    while (answer.status === 200 && Date.now() - started < 1_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      answer = await call();
    }
    expect(answer.status).toBe(401);
    expect(JSON.stringify(answer.body)).toContain('Token has been revoked');
    expect(Date.now() - started).toBeLessThan(1_000);
  }, 60_000);
});
