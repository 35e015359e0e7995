import { createLocalJWKSet, decodeJwt, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { identityTokenDefinition } from '../../machines/identity-token.machine.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import { isAppError } from '../../kernel/errors/app-error.js';
import { SIGNING_KEY_COLLECTIONS, SigningKeys } from '../../src/identity/keys/signing-keys.service.js';
import { IdentityTokens, REVOCATION_CACHE_MS } from '../../src/identity/tokens/identity-tokens.service.js';
import type { EventBusPort } from '../../kernel/ports/event-bus.port.js';
import type { OneOffJob, SchedulerPort } from '../../kernel/ports/scheduler.port.js';
import { ActorRuntime } from '../../src/runtime/actor-runtime.js';
import { httpStatusOf } from '../../src/surface-common/http-status.js';

const ISSUER = 'http://agents.test';

async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
  const store = new MemoryStore(clock);
  await store.init(SIGNING_KEY_COLLECTIONS);
  const runtime = new ActorRuntime({
    store,
    clock,
    logger: pino({ level: 'silent' }),
    maxLiveActors: 100,
    idleMs: 60_000,
    maxConflictRetries: 3,
  });
  runtime.register(identityTokenDefinition);
  await runtime.start();
  const jobs: OneOffJob[] = [];
  const scheduler = { scheduleOnce: async (job: OneOffJob) => void jobs.push(job) } as unknown as SchedulerPort;
  const handlers: Array<(event: { type: string; data: Record<string, unknown> }) => void> = [];
  const bus = {
    subscribe: async (_stream: string, handler: (typeof handlers)[number]) => {
      handlers.push(handler);
      return { unsubscribe: async () => undefined };
    },
  } as unknown as EventBusPort;
  const keys = new SigningKeys(store, new SecretBox('a-master-secret-of-at-least-32-characters!', 'identity-signing-key'), clock);
  await keys.ensureActive();
  const tokens = new IdentityTokens(runtime.collection(identityTokenDefinition), keys, scheduler, clock, bus, ISSUER);
  await tokens.start();
  const issue = (scope: 'read' | 'trade' = 'read') =>
    tokens.issue({ agentActorId: 'usr_1~agent', agentId: 'agent', publicId: 'pub_1', scope, method: 'siwe' });
  return { clock, runtime, keys, tokens, jobs, handlers, issue, store };
}

async function failure(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return { status: httpStatusOf(error), message: error.message, code: error.code };
    throw error;
  }
  throw new Error('expected a failure');
}

describe('identity tokens', () => {
  it('issues an ES256 JWT with the contract claims, its actor valid and its expiry scheduled', async () => {
    const { issue, clock, jobs, runtime, keys } = await setup();
    const issued = await issue('trade');
    expect(issued).toMatchObject({ tokenType: 'Bearer', expiresIn: 300, scope: 'trade' });
    const claims = decodeJwt(issued.accessToken);
    expect(claims).toMatchObject({ iss: ISSUER, sub: 'agent', aud: `${ISSUER}/mcp`, scope: 'trade', publicId: 'pub_1', jti: issued.jti });
    expect(claims.exp! - claims.iat!).toBe(300);
    expect(jobs).toEqual([expect.objectContaining({ address: { type: 'identity-token', id: issued.jti }, runAt: claims.exp! * 1000 })]);
    expect((await runtime.collection(identityTokenDefinition).get(issued.jti))?.state).toBe('valid');
    // An outside verifier with nothing but the JWKS accepts it.
    const { payload } = await jwtVerify(issued.accessToken, createLocalJWKSet(await keys.jwks()), {
      issuer: ISSUER,
      audience: `${ISSUER}/mcp`,
      currentDate: new Date(clock.now()),
    });
    expect(payload.jti).toBe(issued.jti);
    expect((await issue('read')).expiresIn).toBe(3600);
  });

  it('authenticates a valid token as an identity-token principal of its agent', async () => {
    const { issue, tokens } = await setup();
    const issued = await issue('read');
    expect(await tokens.authenticate(issued.accessToken)).toEqual({
      type: 'identity-token',
      jti: issued.jti,
      scope: 'read',
      ownerId: 'usr_1~agent',
      publicId: 'pub_1',
      expiresAt: decodeJwt(issued.accessToken).exp! * 1000,
    });
  });

  it('revoke: 200 once, then 400 Token already revoked; the token is refused with Token has been revoked', async () => {
    const { issue, tokens, clock } = await setup();
    const issued = await issue();
    await tokens.authenticate(issued.accessToken); // cached
    const revoked = await tokens.revoke(issued.accessToken);
    expect(revoked).toEqual({ jti: issued.jti, revoked: true, revokedAt: new Date(clock.now()).toISOString() });
    expect(await failure(tokens.authenticate(issued.accessToken))).toEqual({
      status: 401,
      message: 'Token has been revoked',
      code: 'TOKEN_VALIDATION_FAILED',
    });
    expect(await failure(tokens.revoke(issued.accessToken))).toMatchObject({ status: 400, message: 'Token already revoked' });
    expect(await tokens.status({ jti: issued.jti })).toEqual(revoked);
    expect(await tokens.status({ token: issued.accessToken })).toEqual(revoked);
    expect(await failure(tokens.status({ jti: 'jti_nope' }))).toMatchObject({ status: 404 });
  });

  it('a revocation made by another process is seen through the bus at once, and without the bus within the cache bound', async () => {
    const a = await setup();
    const issued = await a.issue();
    const other = new IdentityTokens(
      a.runtime.collection(identityTokenDefinition),
      a.keys,
      { scheduleOnce: async () => undefined } as never,
      a.clock,
      { subscribe: async () => ({ unsubscribe: async () => undefined }) } as never,
      ISSUER,
    );
    await a.tokens.authenticate(issued.accessToken);
    await other.revoke(issued.accessToken);
    // The bus event (what the runtime publishes on `auth`) evicts a's cache.
    for (const handler of a.handlers) handler({ type: 'token.revoked', data: { jti: issued.jti } });
    expect(await failure(a.tokens.authenticate(issued.accessToken))).toMatchObject({ message: 'Token has been revoked' });

    const second = await a.issue();
    await other.authenticate(second.accessToken);
    await a.tokens.revoke(second.accessToken);
    await a.clock.advance(REVOCATION_CACHE_MS);
    expect(await failure(other.authenticate(second.accessToken))).toMatchObject({ message: 'Token has been revoked' });
  });

  it('expired, tampered, wrong audience and foreign-key tokens: 401 Identity token validation failed', async () => {
    const { issue, tokens, clock } = await setup();
    const issued = await issue('trade');
    const invalid = { status: 401, message: 'Identity token validation failed', code: 'TOKEN_VALIDATION_FAILED' };
    const [h, p, s] = issued.accessToken.split('.');
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...decodeJwt(issued.accessToken), scope: 'manage' })).toString('base64url')}.${s}`;
    expect(await failure(tokens.authenticate(tampered))).toEqual(invalid);
    expect(await failure(tokens.authenticate('not.a.jwt'))).toEqual(invalid);
    expect(p).toBeDefined();
    // A token of the right shape signed by a key the service never had, with our kid.
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const kid = (JSON.parse(Buffer.from(h!, 'base64url').toString()) as { kid: string }).kid;
    const foreign = await new SignJWT({ scope: 'read', publicId: 'pub_1' })
      .setProtectedHeader({ alg: 'ES256', kid })
      .setIssuer(ISSUER)
      .setSubject('agent')
      .setAudience(`${ISSUER}/mcp`)
      .setJti(issued.jti)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    expect(await failure(tokens.authenticate(foreign))).toEqual(invalid);
    const unknownKid = await new SignJWT({ scope: 'read', publicId: 'pub_1' })
      .setProtectedHeader({ alg: 'ES256', kid: (await exportJWK(publicKey)).x! })
      .setIssuer(ISSUER)
      .setAudience(`${ISSUER}/mcp`)
      .setJti(issued.jti)
      .setSubject('agent')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    expect(await failure(tokens.authenticate(unknownKid))).toEqual(invalid);

    await tokens.authenticate(issued.accessToken);
    await clock.advance(300_000);
    expect(await failure(tokens.authenticate(issued.accessToken))).toEqual(invalid);
    // Revoking an expired token: it is no longer a valid token.
    expect(await failure(tokens.revoke(issued.accessToken))).toEqual(invalid);
    expect(await tokens.status({ token: issued.accessToken })).toEqual({ jti: issued.jti, revoked: false });
    // revoke-status by token ignores expiry only: every other check is the one `authenticate` makes.
    for (const bad of [tampered, 'not.a.jwt', foreign, unknownKid]) expect(await failure(tokens.status({ token: bad }))).toEqual(invalid);
  });

  it('after a rotation, tokens of the old key and of the new one both pass', async () => {
    const { issue, tokens, keys } = await setup();
    const old = await issue();
    await keys.rotate();
    const fresh = await issue();
    expect(decodeJwt(old.accessToken).jti).not.toBe(decodeJwt(fresh.accessToken).jti);
    await expect(tokens.authenticate(old.accessToken)).resolves.toMatchObject({ jti: old.jti });
    await expect(tokens.authenticate(fresh.accessToken)).resolves.toMatchObject({ jti: fresh.jti });
  });
});
