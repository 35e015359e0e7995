import { hash } from 'node:crypto';
import { IDEMPOTENCY_MESSAGES } from '../../kernel/errors/idempotency-messages.js';
import {
  AppError,
  isAppError,
  isFaultKind,
  type EnvelopeKind,
  type ErrorCode,
  type ErrorKind,
  type RequestIds,
} from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import { isConcurrentUpdatesGaveUp, isVersionConflict } from '../../kernel/shared/conflict-backoff.js';
import { updateRecord } from '../../kernel/shared/record-update.js';

/**
 * Idempotency: a guarded call runs once per (account, key). A replay within
 * the window answers with the first outcome; the same key with another request is 422;
 * the same key while the first call still runs is 409.
 *
 * A call that was cut off (crash, lost lease) leaves a `running` record whose lease
 * expires; the next call with that key then takes it over and runs the handler again.
 * That is safe because guarded handlers are re-entrant: they derive their order id from
 * the key, so a second run finds and finishes the first run's order instead of placing
 * another (the venue executes an order id once).
 */

export const IDEMPOTENCY_COLLECTION: CollectionSpec = { name: 'idempotency', indexes: [] };

interface StoredFailure {
  code: ErrorCode;
  message: string;
  kind?: ErrorKind;
  /** Written before failures carried a kind (records live 24 h): see `legacyKind`. */
  status?: number;
  envelope: EnvelopeKind;
  retryable: boolean;
  messages?: string[];
  details?: Record<string, unknown>;
  /** The next step (`AppError.hint`): a replay says it too. */
  hint?: string;
  /** The first call's ids: a replay's body repeats them (canonical envelope `meta`). */
  firstRequest?: RequestIds;
}

interface IdempotencyRecord {
  state: 'running' | 'done';
  fingerprint: string;
  /** Epoch ms until which a `running` record belongs to the call that wrote it. */
  leaseUntil: number;
  outcome?: { ok: true; value: unknown } | { ok: false; error: StoredFailure };
}

export interface IdempotencyOptions {
  /** How long an outcome is replayed (24 h). */
  ttlMs: number;
  /** How long a running call owns its key before another call may take it over. */
  leaseMs: number;
  /**
   * This process is the only one that writes the store (the embedded profile: the data
   * directory is locked to one process, data-dir-lock.ts). A running call's claim on its key
   * is then held in this process's memory instead of being written as a `running` record:
   * no other process could read that record, and a process that dies loses its claims with
   * it, which a stored claim only imitates with its lease. Saves a store write (a write
   * transaction of its own when the call comes alone) on every guarded call; the outcome is
   * stored as before.
   */
  soleWriter?: boolean;
}

export const DEFAULT_IDEMPOTENCY_OPTIONS: IdempotencyOptions = { ttlMs: 24 * 60 * 60 * 1000, leaseMs: 10_000 };

/**
 * Claim attempts: losing the claim's compare-and-set means another call with the key wrote
 * its record in between, so a fresh read almost always answers (replay, 409, 422) without
 * writing; only a run of take-overs racing each other lasts longer, and that is "in progress".
 */
const CLAIM_ATTEMPTS = 3;

export class IdempotencyGuard {
  /** Keys of the calls running in this process and their fingerprints, when it is the store's sole writer. */
  private readonly running = new Map<string, string>();
  /** How many of those calls have finished: a call that read the store meanwhile reads again. */
  private releases = 0;

  constructor(
    private readonly store: StorePort,
    private readonly clock: ClockPort,
    private readonly options: IdempotencyOptions = DEFAULT_IDEMPOTENCY_OPTIONS,
  ) {}

  /**
   * Runs `task` once for `scope` + `key`. `fingerprint` identifies the request (same key,
   * other fingerprint → 422). `call.onReplay` is called when the answer is a stored one;
   * `call.ids` are kept with a failure so that its replay repeats the first body;
   * `call.legacyFingerprint` is the same request in the form records were written with
   * before (accepted as a match too, so a retry across an upgrade replays).
   */
  async run<T>(
    scope: string,
    key: string,
    fingerprint: string,
    task: () => Promise<T>,
    call: { onReplay?: () => void; ids?: RequestIds; legacyFingerprint?: string } = {},
  ): Promise<T> {
    const { onReplay } = call;
    const id = hash('sha256', `${scope}\n${key}`, 'base64url');
    const same = (stored: string) => stored === fingerprint || (call.legacyFingerprint !== undefined && stored === call.legacyFingerprint);
    if (this.options.soleWriter) return this.runHeldInProcess(id, fingerprint, same, task, call);
    const claimed = await this.claim(id, fingerprint, same, onReplay);
    if (claimed.replay) return claimed.replay() as T;
    const lease = this.keepLease(id, fingerprint, claimed.version, claimed.expiresAt);
    try {
      const value = await lease.during(task);
      await this.finish(id, lease.version(), claimed.expiresAt, fingerprint, { ok: true, value });
      return value;
    } catch (error) {
      const version = lease.version();
      if (isDefinite(error)) {
        await this.finish(id, version, claimed.expiresAt, fingerprint, { ok: false, error: toStored(error, call.ids) });
      } else {
        // Temporary failures release the key so that the client's retry runs again.
        await this.store.delete(IDEMPOTENCY_COLLECTION.name, id, version).catch(() => undefined);
      }
      throw error;
    }
  }

  /**
   * `run` when this process is the store's sole writer: the key is claimed in `running`, and
   * the stored record is only read (a replay, a mismatch) and written with the outcome. It is
   * read before the key is claimed, so concurrent retries of a finished call replay instead of
   * meeting each other's claims (409), and read again if a call finished during the read. A
   * `running` record found stored was left by a process that held the store before and died
   * mid-call (this one writes none): the call takes it over at once, its lease meaning nothing.
   */
  private async runHeldInProcess<T>(
    id: string,
    fingerprint: string,
    same: (stored: string) => boolean,
    task: () => Promise<T>,
    call: { onReplay?: () => void; ids?: RequestIds },
  ): Promise<T> {
    const refuseIfHeld = () => {
      const holder = this.running.get(id);
      if (holder !== undefined) throw same(holder) ? inProgress() : mismatch();
    };
    let stored: StoredDocument<IdempotencyRecord> | null;
    for (;;) {
      refuseIfHeld();
      // Read before claiming, so that calls replaying a finished key all replay however many come at once.
      const releases = this.releases;
      stored = await this.store.get<IdempotencyRecord>(IDEMPOTENCY_COLLECTION.name, id);
      if (stored && !same(stored.data.fingerprint)) throw mismatch();
      const outcome = stored?.data.state === 'done' ? stored.data.outcome : undefined;
      if (outcome) return replay(outcome, call.onReplay) as T;
      // A call that finished while this one read may have stored the outcome just after the read: read again.
      if (this.releases === releases) break;
    }
    const version = stored?.version ?? 0;
    const window = this.clock.now() + this.options.ttlMs;
    const expiresAt = stored ? expiryOf(stored, window) : window;
    // No await since the last check: the key is free, or held by a call that came meanwhile.
    refuseIfHeld();
    this.running.set(id, fingerprint);
    try {
      const value = await task();
      await this.finish(id, version, expiresAt, fingerprint, { ok: true, value });
      return value;
    } catch (error) {
      if (isDefinite(error)) await this.finish(id, version, expiresAt, fingerprint, { ok: false, error: toStored(error, call.ids) });
      // A temporary failure leaves the key free; a dead process's record taken over goes with it.
      else if (stored) await this.store.delete(IDEMPOTENCY_COLLECTION.name, id, version).catch(() => undefined);
      throw error;
    } finally {
      // Released once the outcome is stored: a call with the key from now on replays it.
      this.running.delete(id);
      this.releases++;
    }
  }

  /**
   * Renews the lease every half lease while the task runs, so a slow call (a live swap waits
   * for confirmation) keeps its key and a retry meanwhile gets 409, not a second run.
   */
  private keepLease(id: string, fingerprint: string, version: number, expiresAt: number) {
    let current = version;
    let stopped = false;
    let renewing: Promise<void> = Promise.resolve();
    let cancel: () => void = () => undefined;
    const renew = () => {
      renewing = renewing.then(async () => {
        if (stopped) return;
        const data: IdempotencyRecord = { state: 'running', fingerprint, leaseUntil: this.clock.now() + this.options.leaseMs };
        try {
          current = (await this.store.put(IDEMPOTENCY_COLLECTION.name, id, { data, expectedVersion: current, expiresAt })).version;
        } catch {
          stopped = true; // taken over, or the store is failing: the running call carries on regardless
        }
      });
      if (!stopped) cancel = this.clock.setTimer(renew, this.options.leaseMs / 2);
    };
    cancel = this.clock.setTimer(renew, this.options.leaseMs / 2);
    return {
      during: async <T>(task: () => Promise<T>): Promise<T> => {
        try {
          return await task();
        } finally {
          stopped = true;
          cancel();
          await renewing;
        }
      },
      version: () => current,
    };
  }

  private async claim(
    id: string,
    fingerprint: string,
    same: (stored: string) => boolean,
    onReplay?: () => void,
  ): Promise<
    { version: number; expiresAt: number; replay?: undefined } | { replay: () => unknown; version?: undefined; expiresAt?: undefined }
  > {
    // A key seen for the first time (the usual call) is claimed by one create, without reading
    // first: the create fails when a record is there, and that record is then read and decided on.
    const first = await this.claimNew(id, fingerprint);
    if (first) return first;
    let expiresAt = 0;
    try {
      const { doc, changed } = await updateRecord<IdempotencyRecord>(
        this.store,
        { collection: IDEMPOTENCY_COLLECTION.name, id },
        (existing) => {
          const now = this.clock.now();
          const lease: IdempotencyRecord = { state: 'running', fingerprint, leaseUntil: now + this.options.leaseMs };
          if (!existing) {
            expiresAt = now + this.options.ttlMs;
            return { data: lease, expiresAt };
          }
          const record = existing.data;
          if (!same(record.fingerprint)) throw mismatch();
          if (record.state === 'done' && record.outcome) return null; // replayed below, nothing written
          if (record.leaseUntil > now) throw inProgress();
          // The call that held the key stopped without finishing: take it over.
          expiresAt = expiryOf(existing, now + this.options.ttlMs);
          return { data: lease, expiresAt };
        },
        { maxAttempts: CLAIM_ATTEMPTS },
      );
      const outcome = doc?.data.state === 'done' ? doc.data.outcome : undefined;
      if (!changed && outcome) return { replay: () => replay(outcome, onReplay) };
      if (!changed || !doc) throw AppError.internal('idempotency claim neither claimed nor replayed');
      return { version: doc.version, expiresAt };
    } catch (error) {
      // Other calls kept claiming the key between our read and write: one of them runs it.
      if (isConcurrentUpdatesGaveUp(error)) throw inProgress();
      throw error;
    }
  }

  /** Claims a key no live record holds (a create: version 0); null when one does. */
  private async claimNew(id: string, fingerprint: string): Promise<{ version: number; expiresAt: number } | null> {
    const now = this.clock.now();
    const expiresAt = now + this.options.ttlMs;
    const data: IdempotencyRecord = { state: 'running', fingerprint, leaseUntil: now + this.options.leaseMs };
    try {
      const doc = await this.store.put(IDEMPOTENCY_COLLECTION.name, id, { data, expectedVersion: 0, expiresAt });
      return { version: doc.version, expiresAt };
    } catch (error) {
      if (isVersionConflict(error)) return null;
      throw error;
    }
  }

  private async finish(
    id: string,
    version: number,
    expiresAt: number,
    fingerprint: string,
    outcome: IdempotencyRecord['outcome'],
  ): Promise<void> {
    const record: IdempotencyRecord = { state: 'done', fingerprint, leaseUntil: 0, outcome };
    try {
      await this.store.put(IDEMPOTENCY_COLLECTION.name, id, { data: record, expectedVersion: version, expiresAt });
    } catch (error) {
      // Our lease was taken over: the other call records the outcome (the same one, since the work is re-entrant).
      if (!isAppError(error) || error.code !== 'VERSION_CONFLICT') throw error;
    }
  }
}

/** the same key while the first call still runs. */
function inProgress(): AppError {
  return new AppError('IDEMPOTENCY_IN_PROGRESS', IDEMPOTENCY_MESSAGES.inProgress, { retryAfterSeconds: 1 });
}

/** 422: the key came with another request. */
function mismatch(): AppError {
  return new AppError('IDEMPOTENCY_MISMATCH', IDEMPOTENCY_MESSAGES.mismatch);
}

/**
 * A definite answer (invalid, not found, failed...) is part of the first response: it is
 * stored and replayed. Faults, retryable failures and conflicts are not: the key is released
 * so that the client's retry runs again.
 */
function isDefinite(error: unknown): error is AppError {
  return isAppError(error) && !isFaultKind(error.kind) && !error.retryable && error.kind !== 'conflict';
}

function replay(outcome: NonNullable<IdempotencyRecord['outcome']>, onReplay?: () => void): unknown {
  onReplay?.();
  if (outcome.ok) return outcome.value;
  const { code, message, status, kind, ...options } = outcome.error;
  throw new AppError(code, message, { ...options, kind: kind ?? legacyKind(status) });
}

/**
 * The kind of a failure stored before failures carried one, from the status it stored. Only a
 * thrower's override made a status differ from its code's default (an order or withdrawal that
 * failed, trading switched off, a body of another media type): those come back as the same
 * kind; every other failure keeps its code's default kind, which answers with the status it had.
 */
function legacyKind(status: number | undefined): ErrorKind | undefined {
  return status === undefined ? undefined : LEGACY_OVERRIDES.get(status);
}

const LEGACY_OVERRIDES: ReadonlyMap<number, ErrorKind> = new Map([
  [422, 'unprocessable'],
  [200, 'declined'],
  [415, 'unsupported_media'],
]);

function toStored(error: AppError, firstRequest: RequestIds | undefined): StoredFailure {
  return {
    code: error.code,
    message: error.message,
    kind: error.kind,
    envelope: error.envelope,
    retryable: error.retryable,
    ...(error.messages ? { messages: error.messages } : {}),
    ...(error.details ? { details: error.details } : {}),
    ...(error.hint === undefined ? {} : { hint: error.hint }),
    ...(firstRequest ? { firstRequest } : {}),
  };
}

function expiryOf(doc: StoredDocument, fallback: number): number {
  return doc.expiresAt ?? fallback;
}
