import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Client, signInSolana, solanaWallet, startTestService, type TestService } from '../support/test-service.js';
import { codeAt, wrongCode } from '../support/totp-codes.js';

const DAY = 24 * 60 * 60 * 1000;

describe('agents, scoped keys, TOTP and step-up (e2e)', () => {
  const clock = new ManualClock(Date.now());
  let svc: TestService;
  let alice: Client;
  let agentId: string;
  const aliceWallet = solanaWallet();
  beforeAll(async () => {
    svc = await startTestService({ clock });
    alice = new Client(svc.url);
    await signInSolana(alice, aliceWallet);
    const created = await alice.post('/api/nest/agents', { name: 'Alpha' });
    agentId = created.body.agentId;
  });
  afterAll(() => svc.stop());

  /** Calls verify with an API key, as software operating the agent would. */
  const asKey = (secret: string) => {
    const client = new Client(svc.url);
    client.bearer = secret;
    return client.post('/api/nest/auth/verify');
  };

  it('creates agents with an unguessable publicId and lists them', async () => {
    const created = await alice.post('/api/nest/agents', { name: 'Beta', agentId: 'my-beta-agent' });
    expect(created).toMatchObject({
      status: 201,
      body: { agentId: 'my-beta-agent', name: 'Beta', status: 'active', createdAt: expect.any(String) },
    });
    expect(created.body.publicId).toMatch(/^pub_[A-Za-z0-9_-]{24}$/);
    expect(created.body.publicId).not.toContain('my-beta-agent');
    expect((await alice.post('/api/nest/agents', { name: 'Again', agentId: 'my-beta-agent' })).status).toBe(409);
    const list = await alice.get('/api/nest/agents');
    expect(list.body.items.map((a: { agentId: string }) => a.agentId)).toEqual(expect.arrayContaining([agentId, 'my-beta-agent']));
    expect((await alice.get(`/api/nest/agents/${agentId}`)).body).toMatchObject({ agentId, name: 'Alpha' });
  });

  it('creates a key with a one-time secret, lists it masked, and revokes it for good', async () => {
    const created = await alice.post(`/api/nest/agents/${agentId}/keys`, { name: 'runtime', scope: 'trade' });
    expect(created.status).toBe(201);
    const { secret, prefix, keyId, expiresAt, createdAt } = created.body;
    expect(secret).toMatch(/^mcpk_[A-Za-z0-9_-]{43}$/);
    expect(secret).toHaveLength(48);
    expect(prefix).toBe(secret.slice(0, 13));
    expect(Date.parse(expiresAt) - Date.parse(createdAt)).toBe(90 * DAY);

    const list = await alice.get(`/api/nest/agents/${agentId}/keys`);
    const entry = list.body.items.find((k: { keyId: string }) => k.keyId === keyId);
    expect(entry).toEqual({
      keyId,
      name: 'runtime',
      prefix,
      maskedSecret: expect.stringMatching(/^mcpk_.{8}\*{35}$/),
      scope: 'trade',
      createdAt,
      expiresAt,
      status: 'active',
    });
    expect(JSON.stringify(list.body)).not.toContain(secret);

    expect(await asKey(secret)).toMatchObject({ status: 200, body: { principal: { type: 'agent-key', keyId, scope: 'trade', agentId } } });
    const revoked = await alice.delete(`/api/nest/agents/${agentId}/keys/${keyId}`);
    expect(revoked).toMatchObject({ status: 200, body: { keyId, status: 'revoked' } });
    expect(await asKey(secret)).toMatchObject({ status: 401, body: { statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' } });
    // Permanent: revoking again changes nothing, the key stays revoked.
    expect((await alice.delete(`/api/nest/agents/${agentId}/keys/${keyId}`)).body.status).toBe('revoked');
  });

  it('refuses a caller-set expiry, unknown scopes and a missing name', async () => {
    const withExpiry = await alice.post(`/api/nest/agents/${agentId}/keys`, {
      name: 'k',
      scope: 'read',
      expiresAt: '2099-01-01T00:00:00Z',
    });
    expect(withExpiry).toMatchObject({
      status: 400,
      body: { statusCode: 400, error: 'Bad Request', message: [expect.stringContaining('expiresAt')] },
    });
    expect((await alice.post(`/api/nest/agents/${agentId}/keys`, { name: 'k', scope: 'admin' })).status).toBe(400);
    expect((await alice.post(`/api/nest/agents/${agentId}/keys`, { scope: 'read' })).body.message).toEqual(['name is required']);
  });

  it('a manage key needs a step-up token from a TOTP code; each code and token works once', async () => {
    const noStepUp = await alice.post(`/api/nest/agents/${agentId}/keys`, { name: 'admin', scope: 'manage' });
    expect(noStepUp).toMatchObject({
      status: 403,
      body: { statusCode: 403, message: 'Step-up token required for manage scope', error: 'Forbidden' },
    });
    // An empty or null token is no token: the same 403, on the agent route, the bot route and the token rotation.
    const { body: bot } = await alice.post('/api/nest/bots', { name: 'step-up bot' });
    for (const stepUpToken of ['', null]) {
      for (const [path, body] of [
        [`/api/nest/agents/${agentId}/keys`, { name: 'admin', scope: 'manage', stepUpToken }],
        [`/api/nest/bots/${bot.id}/mcp/keys`, { name: 'admin', scope: 'manage', stepUpToken }],
        [`/api/nest/bots/${bot.id}/mcp/token`, { scope: 'manage', stepUpToken }],
      ] as const) {
        expect(await alice.post(path, body), `${path} ${String(stepUpToken)}`).toMatchObject({
          status: 403,
          body: { message: 'Step-up token required for manage scope' },
        });
      }
    }

    const enrolled = await alice.post('/api/nest/auth/totp/enroll');
    expect(enrolled.body).toMatchObject({ secret: expect.any(String), otpauthUrl: expect.stringMatching(/^otpauth:\/\/totp\//) });
    const code = await codeAt(enrolled.body.secret, clock);
    expect((await alice.post('/api/nest/auth/totp/activate', { code })).body).toEqual({ active: true });

    const stepUpPath = `/api/nest/agents/${agentId}/control/mcp/step-up`;
    const wrong = await alice.post(stepUpPath, { code: await wrongCode(enrolled.body.secret, clock) });
    expect(wrong).toMatchObject({ status: 400, body: { statusCode: 400, message: 'Verification failed' } });
    // The activation code was used once already: refused as a replay.
    expect(await alice.post(stepUpPath, { code })).toMatchObject({ status: 400, body: { message: 'Verification failed' } });

    await clock.advance(30_000);
    const fresh = await codeAt(enrolled.body.secret, clock);
    const stepUp = await alice.post(stepUpPath, { code: fresh });
    expect(stepUp).toMatchObject({ status: 200, body: { stepUpToken: expect.stringMatching(/^sut_/), expiresAt: expect.any(String) } });
    const manage = await alice.post(`/api/nest/agents/${agentId}/keys`, {
      name: 'admin',
      scope: 'manage',
      stepUpToken: stepUp.body.stepUpToken,
    });
    expect(manage).toMatchObject({ status: 201, body: { scope: 'manage' } });
    const reuse = await alice.post(`/api/nest/agents/${agentId}/keys`, {
      name: 'admin2',
      scope: 'manage',
      stepUpToken: stepUp.body.stepUpToken,
    });
    expect(reuse.status).toBe(403);
  });

  it('keys expire 90 days after creation: 401 and listed as expired', async () => {
    const created = await alice.post(`/api/nest/agents/${agentId}/keys`, { name: 'short-lived', scope: 'read' });
    expect((await asKey(created.body.secret)).status).toBe(200);
    // Jump (a quiet stretch of 90 days), then let every overdue timer fire once.
    clock.jumpTo(clock.now() + 90 * DAY);
    await clock.advance(1000);
    expect(await asKey(created.body.secret)).toMatchObject({ status: 401, body: { message: 'Unauthorized' } });
    // The scheduled expiry has moved the actor too; the operator (signed in again) sees it.
    await signInSolana(alice, aliceWallet);
    const list = await alice.get(`/api/nest/agents/${agentId}/keys?limit=200`);
    expect(list.body.items.find((k: { keyId: string }) => k.keyId === created.body.keyId)?.status).toBe('expired');
    const ops = await fetch(`${svc.url}/api/nest/ops/actors/api-key/${created.body.keyId}`, {
      headers: { authorization: `Bearer ${svc.opsToken}` },
    });
    expect((await ops.json()).state).toBe('expired');
  });
});
