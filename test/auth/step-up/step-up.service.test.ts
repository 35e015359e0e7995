import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import {
  STEP_UP_COLLECTIONS,
  STEP_UP_INVALID_MESSAGE,
  STEP_UP_REQUIRED_MESSAGE,
  StepUpService,
} from '../../../src/auth/step-up/step-up.service.js';
import { TotpService } from '../../../src/auth/totp/totp.service.js';
import { SecretBox } from '../../../kernel/crypto/secret-box.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { codeAt, wrongCode } from '../../support/totp-codes.js';
import { httpStatusOf } from '../../../src/surface-common/http-status.js';

const MASTER = 'test-master-secret-0123456789abcdef';
const USER = 'user-1';
const TARGET = 'bot:bot-1';

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

async function expectForbidden(promise: Promise<unknown>, message = STEP_UP_INVALID_MESSAGE): Promise<void> {
  const error = await rejection(promise);
  expect({ status: httpStatusOf(error), message: error.message, envelope: error.envelope }).toEqual({
    status: 403,
    message,
    envelope: 'standard',
  });
}

describe('StepUpService', () => {
  let clock: ManualClock;
  let store: MemoryStore;
  let tokenBox: SecretBox;
  let stepUp: StepUpService;
  let secret: string;

  beforeEach(async () => {
    clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 10));
    store = new MemoryStore(clock);
    tokenBox = new SecretBox(MASTER, 'step-up-token');
    const totp = new TotpService({ store, clock, box: new SecretBox(MASTER, 'totp-secret'), issuer: 'Agent Runtime' });
    stepUp = new StepUpService({ store, clock, box: tokenBox, totp });
    await totp.init();
    await stepUp.init();
    ({ secret } = await totp.enroll(USER, 'alice'));
    await totp.activate(USER, await codeAt(secret, clock));
  });

  /** Each code is accepted once, so every issue moves to the next step first. */
  async function issue(target = TARGET) {
    await clock.advance(30_000);
    return stepUp.issue({ userId: USER, target, code: await codeAt(secret, clock) });
  }

  it('issues a 5-minute token that can be consumed exactly once', async () => {
    const grant = await issue();
    expect(grant.stepUpToken).toMatch(/^sut_[A-Za-z0-9_-]{43}$/);
    expect(grant.expiresAt).toBe(new Date(clock.now() + 5 * 60_000).toISOString());
    await expect(stepUp.consume({ userId: USER, target: TARGET, token: grant.stepUpToken })).resolves.toBeUndefined();
    await expectForbidden(stepUp.consume({ userId: USER, target: TARGET, token: grant.stepUpToken }));
  });

  it('propagates `Verification failed` for a wrong code and issues nothing', async () => {
    const error = await rejection(stepUp.issue({ userId: USER, target: TARGET, code: await wrongCode(secret, clock) }));
    expect({ status: httpStatusOf(error), message: error.message }).toEqual({ status: 400, message: 'Verification failed' });
    expect((await store.list(STEP_UP_COLLECTIONS[0]!.name, { limit: 10 })).items).toHaveLength(0);
  });

  it('needs a token, and refuses unknown or malformed ones', async () => {
    for (const token of [undefined, null, '']) {
      await expectForbidden(stepUp.consume({ userId: USER, target: TARGET, token }), STEP_UP_REQUIRED_MESSAGE);
    }
    await expectForbidden(stepUp.consume({ userId: USER, target: TARGET, token: `sut_${'A'.repeat(43)}` }));
    await expectForbidden(stepUp.consume({ userId: USER, target: TARGET, token: 'not-a-token' }));
  });

  it('expires after its TTL', async () => {
    const justInTime = await issue();
    await clock.advance(5 * 60_000 - 1);
    await stepUp.consume({ userId: USER, target: TARGET, token: justInTime.stepUpToken });
    const tooLate = await issue();
    await clock.advance(5 * 60_000);
    await expectForbidden(stepUp.consume({ userId: USER, target: TARGET, token: tooLate.stepUpToken }));
  });

  it('honours a custom TTL', async () => {
    const totp = new TotpService({ store, clock, box: new SecretBox(MASTER, 'totp-secret'), issuer: 'x' });
    stepUp = new StepUpService({ store, clock, box: tokenBox, totp, ttlMs: 1000 });
    const grant = await issue();
    expect(grant.expiresAt).toBe(new Date(clock.now() + 1000).toISOString());
    await clock.advance(1000);
    await expectForbidden(stepUp.consume({ userId: USER, target: TARGET, token: grant.stepUpToken }));
  });

  it('is bound to its user and target, and a mismatch does not burn it', async () => {
    const { stepUpToken: token } = await issue();
    await expectForbidden(stepUp.consume({ userId: USER, target: 'bot:other', token }));
    await expectForbidden(stepUp.consume({ userId: USER, target: 'agent:bot-1', token }));
    await expectForbidden(stepUp.consume({ userId: 'user-2', target: TARGET, token }));
    await stepUp.consume({ userId: USER, target: TARGET, token });
  });

  it('stores only the keyed hash of the token', async () => {
    const { stepUpToken } = await issue();
    const { items } = await store.list(STEP_UP_COLLECTIONS[0]!.name, { limit: 10 });
    expect(items.map((doc) => doc.id)).toEqual([tokenBox.keyedHash(stepUpToken)]);
    expect(JSON.stringify(items)).not.toContain(stepUpToken);
    expect(JSON.stringify(items)).not.toContain(stepUpToken.slice(4));
  });

  it('lets exactly one of two concurrent consumes succeed', async () => {
    const { stepUpToken: token } = await issue();
    const results = await Promise.allSettled([
      stepUp.consume({ userId: USER, target: TARGET, token }),
      stepUp.consume({ userId: USER, target: TARGET, token }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((rejected.reason as AppError).message).toBe(STEP_UP_INVALID_MESSAGE);
  });
});
