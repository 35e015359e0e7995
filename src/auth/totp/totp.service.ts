import { NobleCryptoPlugin, ScureBase32Plugin, TOTP, generateSecret, generateURI } from 'otplib';
import type { SecretBox } from '../../../kernel/crypto/secret-box.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';
import { isConcurrentUpdatesGaveUp } from '../../../kernel/shared/conflict-backoff.js';
import { updateRecord } from '../../../kernel/shared/record-update.js';
import { TotpAttemptLimiter } from './totp-attempt.limiter.js';
import {
  TOTP_ALGORITHM,
  TOTP_ATTEMPTS_COLLECTION,
  TOTP_CODE_PATTERN,
  TOTP_COLLECTIONS,
  TOTP_DIGITS,
  TOTP_FAILURE_WINDOW_MS,
  TOTP_MAX_FAILURES,
  TOTP_PERIOD_SECONDS,
  TOTP_SECRETS_COLLECTION,
  TOTP_SECRET_BYTES,
  TOTP_WINDOW_STEPS,
  totpSecretAad,
  verificationFailed,
  type TotpRecord,
} from './totp.model.js';

export { TOTP_COLLECTIONS } from './totp.model.js';

export interface TotpServiceDeps {
  store: StorePort;
  clock: ClockPort;
  /** Seals secrets at rest; give it its own purpose (e.g. `totp-secret`). */
  box: SecretBox;
  /** Shown by authenticator apps next to the account label. */
  issuer: string;
}

export interface TotpEnrollment {
  /** Base32 secret, shown once for manual entry. */
  secret: string;
  /** `otpauth://totp/...` for a QR code. */
  otpauthUrl: string;
}

export interface TotpStatus {
  /** A secret exists, pending or active. */
  enrolled: boolean;
  /** A secret was confirmed with a code; `verify` works. */
  active: boolean;
}

type SecretSlot = 'pendingSecret' | 'activeSecret';

// The TOTP class (not the functional `verify`, typed for HOTP too) so results carry `timeStep`.
const totpVerifier = new TOTP({
  algorithm: TOTP_ALGORITHM,
  digits: TOTP_DIGITS,
  period: TOTP_PERIOD_SECONDS,
  crypto: new NobleCryptoPlugin(),
  base32: new ScureBase32Plugin(),
});

/**
 * RFC 6238 authenticator codes (SHA-1, 6 digits, 30 s, ±1 step) for step-up verification.
 * Secrets are stored sealed; each code is accepted once (last accepted step, CAS-written);
 * failures are limited per user in the store so all processes share the count.
 */
export class TotpService {
  private readonly limiter: TotpAttemptLimiter;

  constructor(private readonly deps: TotpServiceDeps) {
    this.limiter = new TotpAttemptLimiter({
      store: deps.store,
      clock: deps.clock,
      collection: TOTP_ATTEMPTS_COLLECTION,
      maxFailures: TOTP_MAX_FAILURES,
      windowMs: TOTP_FAILURE_WINDOW_MS,
    });
  }

  /** Declares this service's collections; call once at start. */
  async init(): Promise<void> {
    await this.deps.store.init(TOTP_COLLECTIONS);
  }

  /**
   * Starts (or restarts, before activation) enrollment with a fresh secret.
   * @throws AppError RESOURCE_CONFLICT (409) when TOTP is already active: replacing a
   * confirmed second factor needs its own flow, or a stolen session could swap it silently.
   */
  async enroll(userId: string, accountLabel: string): Promise<TotpEnrollment> {
    const { store, clock, box, issuer } = this.deps;
    if (!userId || !accountLabel) throw AppError.validation(['userId and accountLabel are required']);
    const secret = generateSecret({ length: TOTP_SECRET_BYTES });
    const otpauthUrl = generateURI({
      issuer,
      label: accountLabel,
      secret,
      algorithm: TOTP_ALGORITHM,
      digits: TOTP_DIGITS,
      period: TOTP_PERIOD_SECONDS,
    });
    const pendingSecret = box.seal(secret, totpSecretAad(userId));
    // A concurrent enroll that won is replaced, as a re-enroll would replace it.
    await updateRecord<TotpRecord>(store, { collection: TOTP_SECRETS_COLLECTION, id: userId }, (doc) => {
      if (doc?.data.activeSecret) throw AppError.conflict('TOTP is already active');
      return { data: { pendingSecret, activeSecret: null, lastStep: 0, enrolledAt: clock.now(), activatedAt: null } };
    });
    return { secret, otpauthUrl };
  }

  /**
   * Confirms the pending secret with a code from the app; that code counts as used.
   * @throws `Verification failed` (400), RATE_LIMITED (429), or 409 when already active
   * with nothing pending.
   */
  async activate(userId: string, code: string): Promise<void> {
    const doc = await this.deps.store.get<TotpRecord>(TOTP_SECRETS_COLLECTION, userId);
    if (doc?.data.activeSecret && !doc.data.pendingSecret) throw AppError.conflict('TOTP is already active');
    await this.check(userId, code, 'pendingSecret');
  }

  /**
   * Resolves when `code` is a valid, unused code of the user's active secret.
   * @throws `Verification failed` (400) for a wrong, reused or malformed code or no active
   * secret — one message so a caller cannot probe which; RATE_LIMITED (429) after
   * 5 failures in 15 minutes.
   */
  async verify(userId: string, code: string): Promise<void> {
    await this.check(userId, code, 'activeSecret');
  }

  async status(userId: string): Promise<TotpStatus> {
    const doc = await this.deps.store.get<TotpRecord>(TOTP_SECRETS_COLLECTION, userId);
    const active = Boolean(doc?.data.activeSecret);
    return { enrolled: active || Boolean(doc?.data.pendingSecret), active };
  }

  private async check(userId: string, code: string, slot: SecretSlot): Promise<void> {
    const reservedAt = await this.limiter.reserve(userId);
    if (!(await this.accept(userId, code, slot))) throw verificationFailed();
    await this.limiter.refund(userId, reservedAt);
  }

  /**
   * Checks the code against the stored secret, then records its step with a CAS write
   * (`updateRecord`); false when refused. The check is async, so it runs once, outside the
   * write's decision: that decision only accepts while the secret checked is still the one
   * stored and no later step was recorded since (someone may have accepted this very code).
   */
  private async accept(userId: string, code: string, slot: SecretSlot): Promise<boolean> {
    const { store, clock, box } = this.deps;
    if (typeof code !== 'string' || !TOTP_CODE_PATTERN.test(code)) return false;
    const doc = await store.get<TotpRecord>(TOTP_SECRETS_COLLECTION, userId);
    const sealed = doc?.data[slot];
    if (!doc || !sealed) return false;
    const now = clock.now();
    const result = await totpVerifier.verify(code, {
      secret: box.openText(sealed, totpSecretAad(userId)),
      // otplib takes seconds; a tolerance of one period spans exactly the steps either side.
      epoch: Math.floor(now / 1000),
      epochTolerance: TOTP_PERIOD_SECONDS * TOTP_WINDOW_STEPS,
    });
    if (!result.valid) return false;
    const step = result.timeStep;
    try {
      const { changed } = await updateRecord<TotpRecord>(store, { collection: TOTP_SECRETS_COLLECTION, id: userId }, (current) => {
        // Checked here rather than via otplib's `afterTimeStep`, which throws when the stored
        // step is ahead of the window (e.g. after a clock correction) instead of refusing.
        if (!current || current.data[slot] !== sealed || step <= current.data.lastStep) return null;
        const next: TotpRecord =
          slot === 'activeSecret'
            ? { ...current.data, lastStep: step }
            : { ...current.data, activeSecret: sealed, pendingSecret: null, lastStep: step, activatedAt: now };
        return { data: next };
      });
      return changed;
    } catch (error) {
      // Writers kept overtaking this one: refused, as the old loop refused after its last attempt.
      if (isConcurrentUpdatesGaveUp(error)) return false;
      throw error;
    }
  }
}
