import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { RemoteJwksIdentityProviders } from '../../adapters/identity/remote-jwks-provider.adapter.js';
import { isAppError } from '../../kernel/errors/app-error.js';
import { TestIdentityProvider } from '../support/oidc-provider.js';
import { httpStatusOf } from '../../src/surface-common/http-status.js';

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return { status: httpStatusOf(error), code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('identity providers on remote JWKS (jose) with a timeout and a circuit breaker', () => {
  let idp: TestIdentityProvider;
  beforeAll(async () => {
    idp = await TestIdentityProvider.start();
  });
  afterAll(() => idp.close());
  const providers = (clock = new ManualClock(Date.now()), threshold = 2) =>
    new RemoteJwksIdentityProviders({
      providers: { idp: { issuer: idp.issuer, audience: idp.audience, jwksUrl: idp.jwksUrl } },
      timeoutMs: 200,
      cooldownMs: 0,
      breaker: { threshold, openMs: 60_000 },
      clock,
    });

  it('verifies a token, caches the key set, refetches on a kid it does not hold', async () => {
    const port = providers();
    const before = idp.jwksFetches;
    expect(await port.verify('idp', await idp.token('a'))).toEqual({ provider: 'idp', issuer: idp.issuer, subject: 'a' });
    await port.verify('idp', await idp.token('b'));
    expect(idp.jwksFetches - before).toBe(1);
    await idp.rotate();
    await port.verify('idp', await idp.token('c'));
    expect(idp.jwksFetches - before).toBe(2);
  });

  it('a bad token is 401 and never opens the breaker; an unknown provider is 401 with its name', async () => {
    const port = providers();
    for (let i = 0; i < 3; i++)
      expect(await failure(port.verify('idp', await idp.token('a', { audience: 'other' })))).toMatchObject({
        status: 401,
        code: 'PROVIDER_AUTH_FAILED',
      });
    expect(await port.verify('idp', await idp.token('a'))).toMatchObject({ subject: 'a' });
    expect(await failure(port.verify('nobody', 'x.y.z'))).toEqual({
      status: 401,
      code: 'AUTHENTICATION_FAILED',
      message: 'Unknown identity provider: nobody',
    });
  });

  it('a JWKS slower than the timeout is 503; after `threshold` of them the breaker answers without fetching', async () => {
    const port = providers();
    await idp.rotate();
    idp.delayMs = 500;
    try {
      const token = await idp.token('slow');
      expect(await failure(port.verify('idp', token))).toMatchObject({ status: 503, code: 'PROVIDER_UNAVAILABLE' });
      expect(await failure(port.verify('idp', token))).toMatchObject({ status: 503 });
      const fetches = idp.jwksFetches;
      expect(await failure(port.verify('idp', token))).toMatchObject({
        status: 503,
        code: 'CIRCUIT_BREAKER_OPEN',
        message: 'Circuit breaker open for provider: identity:idp',
      });
      expect(idp.jwksFetches).toBe(fetches);
    } finally {
      idp.delayMs = 0;
    }
  });
});
