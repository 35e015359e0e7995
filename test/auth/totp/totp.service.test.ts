import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { LmdbStore } from '../../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { TOTP_SECRETS_COLLECTION, totpSecretAad, type TotpRecord } from '../../../src/auth/totp/totp.model.js';
import { TOTP_COLLECTIONS, TotpService } from '../../../src/auth/totp/totp.service.js';
import { SecretBox } from '../../../kernel/crypto/secret-box.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { codeAt, wrongCode } from '../../support/totp-codes.js';
import { httpStatusOf } from '../../../src/surface-common/http-status.js';

const MASTER = 'test-master-secret-0123456789abcdef';
const USER = 'user-1';

async function expectAppError(promise: Promise<unknown>, status: number, message: string): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect({ status: httpStatusOf(appError), message: appError.message }).toEqual({ status, message });
  return appError;
}

const verificationFailed = (p: Promise<unknown>) => expectAppError(p, 400, 'Verification failed');

describe('TotpService', () => {
  let clock: ManualClock;
  let store: MemoryStore;
  let totp: TotpService;

  beforeEach(async () => {
    // 10 s into a step, so ±1 step is not an edge case of the boundary.
    clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 10));
    store = new MemoryStore(clock);
    totp = new TotpService({ store, clock, box: new SecretBox(MASTER, 'totp-secret'), issuer: 'Agent Runtime' });
    await totp.init();
  });

  /** Enrolls and activates USER; the next code is one step later so it is unused. */
  async function activeUser(): Promise<string> {
    const { secret } = await totp.enroll(USER, 'alice@example.com');
    await totp.activate(USER, await codeAt(secret, clock));
    await clock.advance(30_000);
    return secret;
  }

  it('enrolls with a base32 secret and an otpauth URL, pending until activated', async () => {
    expect(await totp.status(USER)).toEqual({ enrolled: false, active: false });
    const { secret, otpauthUrl } = await totp.enroll(USER, 'alice@example.com');
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(otpauthUrl).toMatch(/^otpauth:\/\/totp\/Agent%20Runtime:alice%40example\.com\?/);
    expect(otpauthUrl).toContain(`secret=${secret}`);
    expect(await totp.status(USER)).toEqual({ enrolled: true, active: false });
    await verificationFailed(totp.verify(USER, await codeAt(secret, clock)));

    await totp.activate(USER, await codeAt(secret, clock, 1));
    expect(await totp.status(USER)).toEqual({ enrolled: true, active: true });
    await expect(totp.verify(USER, await codeAt(secret, clock, 1))).rejects.toThrow('Verification failed');
    await clock.advance(60_000);
    await expect(totp.verify(USER, await codeAt(secret, clock))).resolves.toBeUndefined();
  });

  it('re-enrolling before activation replaces the pending secret; after activation it is a 409', async () => {
    const first = await totp.enroll(USER, 'alice');
    const second = await totp.enroll(USER, 'alice');
    expect(second.secret).not.toBe(first.secret);
    await verificationFailed(totp.activate(USER, await codeAt(first.secret, clock)));
    await totp.activate(USER, await codeAt(second.secret, clock));
    await expectAppError(totp.enroll(USER, 'alice'), 409, 'TOTP is already active');
    await expectAppError(totp.activate(USER, await codeAt(second.secret, clock, 1)), 409, 'TOTP is already active');
  });

  it('never stores the secret in clear', async () => {
    const { secret } = await totp.enroll(USER, 'alice');
    await totp.activate(USER, await codeAt(secret, clock));
    for (const { name } of TOTP_COLLECTIONS) {
      const { items } = await store.list(name, { limit: 100 });
      expect(JSON.stringify(items)).not.toContain(secret);
    }
    const record = await store.get<{ activeSecret: string }>('totp_secrets', USER);
    expect(record?.data.activeSecret).toMatch(/^v1\./);
  });

  it('refuses wrong, malformed and unenrolled codes with `Verification failed` (400, standard)', async () => {
    await verificationFailed(totp.verify('nobody', '123456'));
    const secret = await activeUser();
    const error = await verificationFailed(totp.verify(USER, await wrongCode(secret, clock)));
    expect(error.code).toBe('VALIDATION_ERROR');
    expect(error.envelope).toBe('standard');
    await verificationFailed(totp.verify(USER, '12345'));
    await verificationFailed(totp.verify(USER, 'abcdef'));
  });

  it('accepts a code once, and no older code after it', async () => {
    const secret = await activeUser();
    const older = await codeAt(secret, clock, -1);
    const code = await codeAt(secret, clock);
    await totp.verify(USER, code);
    await verificationFailed(totp.verify(USER, code));
    await verificationFailed(totp.verify(USER, older));
    await clock.advance(30_000);
    await verificationFailed(totp.verify(USER, code)); // still inside the window, still used
    await totp.verify(USER, await codeAt(secret, clock));
  });

  it('accepts ±1 step and refuses ±2 steps', async () => {
    const secret = await activeUser();
    // Two steps further on, so the code two steps back is newer than the activation code:
    // refusing it must be the window's doing, not replay protection.
    await clock.advance(60_000);
    await verificationFailed(totp.verify(USER, await codeAt(secret, clock, -2)));
    await verificationFailed(totp.verify(USER, await codeAt(secret, clock, 2)));
    await totp.verify(USER, await codeAt(secret, clock, -1));
    await clock.advance(90_000);
    await totp.verify(USER, await codeAt(secret, clock, 1));
  });

  it('lets exactly one of two concurrent verifications of one code succeed', async () => {
    const secret = await activeUser();
    const code = await codeAt(secret, clock);
    const results = await Promise.allSettled([totp.verify(USER, code), totp.verify(USER, code)]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect((rejected.reason as AppError).message).toBe('Verification failed');
  });

  it('refuses with 429 after 5 failures in 15 minutes, shared by every instance, then recovers', async () => {
    const secret = await activeUser();
    const other = new TotpService({ store, clock, box: new SecretBox(MASTER, 'totp-secret'), issuer: 'x' });
    for (let i = 0; i < 5; i++) {
      await verificationFailed((i % 2 ? other : totp).verify(USER, await wrongCode(secret, clock)));
      await clock.advance(60_000);
    }
    const limited = await expectAppError(totp.verify(USER, await codeAt(secret, clock)), 429, 'Too many verification attempts');
    expect(limited.code).toBe('RATE_LIMITED');
    expect(limited.envelope).toBe('standard');
    // The first failure was 5 minutes ago, so it leaves the window in 10 minutes.
    expect(limited.retryAfterSeconds).toBe(600);
    await expectAppError(other.verify(USER, await codeAt(secret, clock)), 429, 'Too many verification attempts');

    await clock.advance(600_000);
    await totp.verify(USER, await codeAt(secret, clock));
  });

  it('does not count successful verifications against the limit', async () => {
    const secret = await activeUser();
    for (let i = 0; i < 4; i++) await verificationFailed(totp.verify(USER, await wrongCode(secret, clock)));
    await totp.verify(USER, await codeAt(secret, clock));
    await verificationFailed(totp.verify(USER, await wrongCode(secret, clock)));
    await expectAppError(totp.verify(USER, await codeAt(secret, clock, 1)), 429, 'Too many verification attempts');
  });

  it('limits attempts per user', async () => {
    const secret = await activeUser();
    for (let i = 0; i < 5; i++) await verificationFailed(totp.verify('intruder', '000000'));
    await expectAppError(totp.verify('intruder', '000000'), 429, 'Too many verification attempts');
    await totp.verify(USER, await codeAt(secret, clock));
  });
});

describe('TotpService under contention (two processes on one LMDB directory)', () => {
  it('30 concurrent enrollments each land once; 30 concurrent activations with one code accept it once', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 12, 0, 10));
    const dir = await mkdtemp(join(tmpdir(), 'totp-'));
    const handles = [
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    ];
    try {
      const services = handles.map(
        (store) => new TotpService({ store, clock, box: new SecretBox(MASTER, 'totp-secret'), issuer: 'Agent Runtime' }),
      );
      for (const service of services) await service.init();
      const enrolled = await Promise.all(Array.from({ length: 30 }, (_, i) => services[i % 2]!.enroll(USER, 'alice@example.com')));
      expect((await handles[0]!.get(TOTP_SECRETS_COLLECTION, USER))?.version).toBe(30);
      // The secret that counts is the one written last; it is one of those handed out.
      const stored = await handles[1]!.get<TotpRecord>(TOTP_SECRETS_COLLECTION, USER);
      const secret = new SecretBox(MASTER, 'totp-secret').openText(stored!.data.pendingSecret!, totpSecretAad(USER));
      expect(enrolled.map((e) => e.secret)).toContain(secret);

      const code = await codeAt(secret, clock);
      const uses = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => services[i % 2]!.activate(USER, code)));
      expect(uses.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      // The others: the code is used (400), TOTP is active already (409) or, past five failures, 429.
      for (const r of uses.filter((u) => u.status === 'rejected')) {
        expect(['Verification failed', 'TOTP is already active', 'Too many verification attempts']).toContain(
          (r as PromiseRejectedResult).reason.message,
        );
      }
      expect(await services[0]!.status(USER)).toEqual({ enrolled: true, active: true });
    } finally {
      await Promise.all(handles.map((store) => store.close()));
      await rm(dir, { recursive: true, force: true });
    }
  });
});
