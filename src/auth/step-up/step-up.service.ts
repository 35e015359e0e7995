import { randomBytes } from 'node:crypto';
import type { SecretBox } from '../../../kernel/crypto/secret-box.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../../kernel/ports/store.port.js';
import { isVersionConflict } from '../totp/totp.model.js';
import type { TotpService } from '../totp/totp.service.js';

const STEP_UP_TOKENS_COLLECTION = 'step_up_tokens';

/** Collections the step-up service uses (the TOTP service declares its own). */
export const STEP_UP_COLLECTIONS: CollectionSpec[] = [{ name: STEP_UP_TOKENS_COLLECTION, indexes: [] }];

/** Contract: step-up tokens live 5 minutes. */
const STEP_UP_TTL_MS = 5 * 60_000;

const TOKEN_PREFIX = 'sut_';
const TOKEN_BYTES = 32;
/** `sut_` + base64url of 32 bytes (43 characters, no padding). */
const TOKEN_PATTERN = /^sut_[A-Za-z0-9_-]{43}$/;

/** The auth and key errors. */
export const STEP_UP_REQUIRED_MESSAGE = 'Step-up token required for manage scope';
/** Ours: the interface names no message for a bad token, so one message covers every cause. */
export const STEP_UP_INVALID_MESSAGE = 'Invalid or expired step-up token';

/** A stored token; the document id is the token's keyed hash, never the token. */
interface StepUpRecord {
  userId: string;
  target: string;
  issuedAt: number;
  expiresAt: number;
  /** Set by `consume`; the record stays until its TTL as an audit trace. */
  usedAt: number | null;
}

export interface StepUpServiceDeps {
  store: StorePort;
  clock: ClockPort;
  /** Hashes tokens for lookup; give it its own purpose (e.g. `step-up-token`). */
  box: SecretBox;
  totp: TotpService;
  ttlMs?: number;
}

export interface IssueStepUpInput {
  userId: string;
  /** What the token may be spent on, e.g. `bot:<id>` or `agent:<id>`. */
  target: string;
  /** 6-digit TOTP code from the user's authenticator app. */
  code: string;
}

export interface StepUpGrant {
  stepUpToken: string;
  /** ISO 8601. */
  expiresAt: string;
}

export interface ConsumeStepUpInput {
  userId: string;
  target: string;
  /** As sent by the client (`stepUpToken` body field or `X-Step-Up-Token`); may be absent. */
  token: string | null | undefined;
}

/**
 * Step-up tokens: proof of a fresh TOTP code, needed for `manage` actions. Single use,
 * short-lived, bound to one user and one target; only their keyed hash is stored.
 */
export class StepUpService {
  private readonly ttlMs: number;

  constructor(private readonly deps: StepUpServiceDeps) {
    this.ttlMs = deps.ttlMs ?? STEP_UP_TTL_MS;
  }

  /** Declares this service's collections; call once at start. */
  async init(): Promise<void> {
    await this.deps.store.init(STEP_UP_COLLECTIONS);
  }

  /**
   * Verifies the code, then issues a token for `target`.
   * @throws what `TotpService.verify` throws: `Verification failed` (400) or 429.
   */
  async issue({ userId, target, code }: IssueStepUpInput): Promise<StepUpGrant> {
    const { store, clock, box, totp } = this.deps;
    if (!userId || !target) throw AppError.validation(['userId and target are required']);
    await totp.verify(userId, code);
    const stepUpToken = TOKEN_PREFIX + randomBytes(TOKEN_BYTES).toString('base64url');
    const issuedAt = clock.now();
    const expiresAt = issuedAt + this.ttlMs;
    const record: StepUpRecord = { userId, target, issuedAt, expiresAt, usedAt: null };
    // Create-only write: a 256-bit collision is not a real risk, and would fail loudly anyway.
    await store.put(STEP_UP_TOKENS_COLLECTION, box.keyedHash(stepUpToken), {
      data: record,
      expectedVersion: 0,
      expiresAt,
    });
    return { stepUpToken, expiresAt: new Date(expiresAt).toISOString() };
  }

  /**
   * Spends a token on `target`; resolves once, for exactly one caller.
   * @throws 403 `Step-up token required for manage scope` when absent; 403
   * `Invalid or expired step-up token` when unknown, expired, used, or bound to another
   * user or target (a mismatch does not burn the token).
   */
  async consume({ userId, target, token }: ConsumeStepUpInput): Promise<void> {
    const { store, clock, box } = this.deps;
    if (token === undefined || token === null || token === '') throw AppError.forbidden(STEP_UP_REQUIRED_MESSAGE);
    if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) throw invalidToken();
    const id = box.keyedHash(token);
    const doc = await store.get<StepUpRecord>(STEP_UP_TOKENS_COLLECTION, id);
    const now = clock.now();
    // The store hides expired documents; the explicit check covers a store that sweeps late.
    if (!doc || doc.data.usedAt !== null || doc.data.expiresAt <= now) throw invalidToken();
    if (doc.data.userId !== userId || doc.data.target !== target) throw invalidToken();
    try {
      // CAS on the version read: of two concurrent consumes only one write lands.
      await store.put<StepUpRecord>(STEP_UP_TOKENS_COLLECTION, id, {
        data: { ...doc.data, usedAt: now },
        expectedVersion: doc.version,
        expiresAt: doc.data.expiresAt,
      });
    } catch (error) {
      if (isVersionConflict(error)) throw invalidToken();
      throw error;
    }
  }
}

function invalidToken(): AppError {
  return AppError.forbidden(STEP_UP_INVALID_MESSAGE);
}
