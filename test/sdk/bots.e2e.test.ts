/**
 * A legacy bot's keys, agent card, settings and deletion through the SDK against the real
 * service: the key flow as for an agent (`botKeys`: the secret once, a `manage` key only with a
 * step-up token from `bots.stepUp`, revocation), its MCP settings and audit log, its agent card
 * (`botCards`: draft, publish, revoke), and someone else's bot answering 404 as a missing one.
 */
import nacl from 'tweetnacl';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { naclSigner, OperatorClient, type SdkError } from '../../sdk/src/index.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';
import { codeAt, stoppedClock } from '../support/totp-codes.js';

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected an SdkError'),
    (error: SdkError) => error,
  );

describe('legacy bots through the SDK: keys, card, settings (e2e)', () => {
  let svc: TestService;
  let operator: OperatorClient;
  let botId: string;

  beforeAll(async () => {
    svc = await startTestService();
    operator = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    botId = (await operator.bots.create({ name: 'sdk keys bot' })).id;
  });
  afterAll(() => svc?.stop());

  it('updates the fields given and keeps the others', async () => {
    const updated = await operator.bots.update(botId, { description: 'answers in the shop', tradingEnabled: true });
    expect(updated).toMatchObject({ id: botId, name: 'sdk keys bot', description: 'answers in the shop', tradingEnabled: true });
    expect(await operator.bots.get(botId)).toMatchObject({ description: 'answers in the shop', tradingEnabled: true });
  });

  it('botKeys: a read key with its secret once, listed masked; manage only with a step-up token; revoked', async () => {
    expect(await operator.botKeys.list(botId)).toEqual({ items: [] });
    const read = await operator.botKeys.create(botId, { name: 'runtime', scope: 'read' });
    expect(read.secret).toMatch(/^mcpk_/);
    const listed = (await operator.botKeys.list(botId)).items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ keyId: read.keyId, name: 'runtime', scope: 'read', status: 'active' });
    expect(JSON.stringify(listed)).not.toContain(read.secret);

    const refused = await caught(operator.botKeys.create(botId, { name: 'admin', scope: 'manage' }));
    expect(refused).toMatchObject({ status: 403, message: 'Step-up token required for manage scope' });
    const clock = stoppedClock();
    const secret = (await operator.totp.enroll()).secret;
    await operator.totp.activate(await codeAt(secret, clock));
    // The next period's code: the one just used to activate works once.
    const { stepUpToken } = await operator.bots.stepUp(botId, { code: await codeAt(secret, clock, 1) });
    const manage = await operator.botKeys.create(botId, { name: 'admin', scope: 'manage', stepUpToken });
    expect(manage).toMatchObject({ scope: 'manage', secret: expect.stringMatching(/^mcpk_/) });

    await operator.botKeys.revoke(botId, read.keyId);
    const after = (await operator.botKeys.list(botId)).items;
    expect(after.find((key) => key.keyId === read.keyId)?.status).toBe('revoked');
    expect(after.find((key) => key.keyId === manage.keyId)?.status).toBe('active');
  });

  it('MCP settings and the audit log of its MCP calls', async () => {
    const before = await operator.bots.mcpConfig(botId);
    expect(before.config).toMatchObject({ enabled: expect.any(Boolean), disabledCategories: expect.any(Array) });
    expect(await operator.bots.setMcpConfig(botId, { granularErrors: true })).toMatchObject({ config: { granularErrors: true } });
    expect((await operator.bots.mcpConfig(botId)).config.granularErrors).toBe(true);
    expect(Array.isArray((await operator.bots.logs(botId)).items)).toBe(true);
  });

  it('botCards: the draft, edited, published, revoked', async () => {
    expect(await operator.botCards.get(botId)).toMatchObject({ status: 'draft' });
    expect(await operator.botCards.update(botId, { name: 'Shop bot', description: 'Answers questions about the shop' })).toMatchObject({
      name: 'Shop bot',
    });
    expect(await operator.botCards.publish(botId)).toMatchObject({ status: 'published', name: 'Shop bot' });
    expect(await operator.botCards.revoke(botId)).toMatchObject({ status: 'revoked' });
  });

  it("someone else's bot is not found, and a deleted bot is gone", async () => {
    const stranger = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await stranger.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    expect(await caught(stranger.botKeys.list(botId))).toMatchObject({ status: 404 });
    expect(await caught(stranger.botCards.get(botId))).toMatchObject({ status: 404 });
    expect(await operator.bots.remove(botId)).toEqual({ id: botId, deleted: true });
    expect(await caught(operator.bots.get(botId))).toMatchObject({ status: 404 });
  });
});
