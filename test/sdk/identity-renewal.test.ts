/**
 * Identity tokens are renewed before `exp` (authentication rule 7, client SDK):
 * the exact timing against a scripted onboarding route on a driven clock (onboarding.e2e.test.ts
 * does the same against the real service).
 */
import { describe, expect, it } from 'vitest';
import { AgentClient, providerOnboarding, type IdentityTokenCredential } from '../../sdk/src/index.js';
import { DrivenClock, json, jwtWithExp, scriptedFetch, toolResult, type Recorded } from './sdk-fakes.js';

function onboardingAnswer(clock: DrivenClock, expiresIn: number, n: number) {
  return () =>
    json(201, {
      agentId: 'agt_1',
      publicId: 'pub_1',
      accessToken: `${jwtWithExp(Math.floor(clock.now() / 1000) + expiresIn)}${n}`,
      tokenType: 'Bearer',
      expiresIn,
      scope: 'trade',
      jti: `jti-${n}`,
      verified: false,
    });
}

describe('identity token renewal', () => {
  it('renews a trade token (300 s) 60 s before exp, not earlier, and uses the new one', async () => {
    const clock = new DrivenClock();
    const answers: Array<Response | ((r: Recorded) => Response)> = [
      onboardingAnswer(clock, 300, 1),
      toolResult({}),
      toolResult({}),
      onboardingAnswer(clock, 300, 2),
      toolResult({}),
    ];
    const { fetch, requests } = scriptedFetch(answers);
    let providerTokens = 0;
    const client = new AgentClient({
      baseUrl: 'http://svc.test',
      identity: providerOnboarding({ provider: 'acme', providerToken: () => `provider-${++providerTokens}`, scope: 'trade' }),
      fetch,
      clock,
    });
    await client.callTool('trading_portfolio_summary', {});
    const credential = client.credential as IdentityTokenCredential;
    const first = credential.identity!.accessToken;
    expect(credential.renewAt).toBe(Math.floor(Date.UTC(2026, 0, 1) / 1000) * 1000 + 240_000);

    clock.time += 239_000; // one second before the renewal point: the same token
    await client.callTool('trading_portfolio_summary', {});
    expect(requests[2]!.headers.authorization).toBe(`Bearer ${first}`);

    clock.time += 1_000; // 60 s before exp: renewed before the call
    await client.callTool('trading_portfolio_summary', {});
    expect(requests[3]!.url).toBe('http://svc.test/api/public/erc8004/onboarding/identity');
    expect(requests[3]!.body).toEqual({ provider: 'acme', providerToken: 'provider-2', scope: 'trade' });
    expect(requests[4]!.headers.authorization).toBe(`Bearer ${credential.identity!.accessToken}`);
    expect(credential.identity!.accessToken).not.toBe(first);
    expect(credential.renewals).toBe(2);
    // The MCP endpoint of the agent the token names.
    expect(requests[1]!.url).toBe('http://svc.test/mcp/pub_1');
  });

  it('a short-lived token renews a fifth of its lifetime ahead; concurrent calls share one renewal', async () => {
    const clock = new DrivenClock();
    const { fetch, requests } = scriptedFetch([onboardingAnswer(clock, 60, 1), toolResult({}), toolResult({})]);
    const client = new AgentClient({
      baseUrl: 'http://svc.test',
      identity: providerOnboarding({ provider: 'acme', providerToken: 't', scope: 'read' }),
      fetch,
      clock,
    });
    await Promise.all([client.callTool('trading_portfolio_summary', {}), client.callTool('trading_portfolio_summary', {})]);
    expect(requests.filter((r) => r.url.endsWith('/onboarding/identity'))).toHaveLength(1);
    expect((client.credential as IdentityTokenCredential).renewAt).toBe(Math.floor(Date.UTC(2026, 0, 1) / 1000) * 1000 + 48_000);
  });

  it('a 401 with a held token renews once and repeats the call', async () => {
    const clock = new DrivenClock();
    const { fetch, requests } = scriptedFetch([
      onboardingAnswer(clock, 300, 1),
      json(401, { statusCode: 401, message: 'Token has been revoked', error: 'Unauthorized' }),
      onboardingAnswer(clock, 300, 2),
      toolResult({ ok: true }),
    ]);
    const client = new AgentClient({
      baseUrl: 'http://svc.test',
      identity: providerOnboarding({ provider: 'acme', providerToken: 't', scope: 'trade' }),
      fetch,
      clock,
    });
    await expect(client.callTool('trading_portfolio_summary', {})).resolves.toEqual({ ok: true });
    expect(requests.map((r) => new URL(r.url).pathname)).toEqual([
      '/api/public/erc8004/onboarding/identity',
      '/mcp/pub_1',
      '/api/public/erc8004/onboarding/identity',
      '/mcp/pub_1',
    ]);
  });

  it('the provider refusing its token is a provider_auth_error', async () => {
    const { fetch } = scriptedFetch([json(401, { statusCode: 401, message: 'Unknown identity provider: acme', error: 'Unauthorized' })]);
    const client = new AgentClient({
      baseUrl: 'http://svc.test',
      identity: providerOnboarding({ provider: 'acme', providerToken: 't', scope: 'trade' }),
      fetch,
    });
    await expect(client.listTools()).rejects.toMatchObject({
      code: 'provider_auth_error',
      status: 401,
      message: 'Unknown identity provider: acme',
    });
  });
});
