import { principalRefOf } from '../auth/credentials/credential-resolver.js';
import { isAppError } from '../../kernel/errors/app-error.js';
import { isPlainObject } from '../../kernel/shared/is-plain-object.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { AuditEntry, AuditSink } from './audit.types.js';
import type { IdempotencyGuard } from './idempotency-guard.js';
import { type OperationCatalog, boundContext, parseOperationInput, type Viewer } from './operation-catalog.js';
import type { AnyOperation, CallContext } from './operation.types.js';
import { IDEMPOTENCY_FIELD, isGuarded } from './operation-definition.js';
import { digestArguments, requestFingerprint, sha256Hex, type KeyedHash } from './request-digest.js';

export { digestArguments } from './request-digest.js';

/** What a surface knows about a call before it reaches the catalog. */
export interface Invocation {
  name: string;
  input: unknown;
  ctx: CallContext;
  viewer: Viewer;
  /** Called when a guarded call is answered from its idempotency record (REST sets `Idempotent-Replayed`). */
  onReplay?: () => void;
}

export interface InvokerOptions {
  /** Guarded operations replay their first answer under the same idempotency key. */
  idempotency?: IdempotencyGuard;
  /**
   * Resolves once what was written so far is durable and its events published
   * (`ActorRuntime.settled`): awaited before a call that may have written is answered.
   */
  settled?: () => Promise<void>;
  /**
   * Keyed hash of a guarded request's every field, its idempotency fingerprint (the
   * composition: HMAC-SHA256 under a key derived from `DATA_ENCRYPTION_KEY`); plain SHA-256 when absent.
   */
  fingerprintHash?: KeyedHash;
}

/**
 * The one path from a surface (REST or MCP) into an operation: visibility, scope,
 * validation, the handler, durability of what it wrote, and an audit entry for the
 * outcome. Surfaces only translate what comes back into their envelopes.
 */
export class OperationInvoker {
  constructor(
    readonly catalog: OperationCatalog,
    private readonly audit: AuditSink,
    private readonly clock: ClockPort,
    private readonly options: InvokerOptions = {},
  ) {}

  /**
   * Runs the operation. Throws `AppError` 404 (`Tool not found: <name>`) for an unknown
   * or hidden operation, 403 `Scope insufficient: ...` for a too-low scope, 400 for bad
   * input, and whatever the handler throws.
   */
  async invoke({ name, input, ctx: given, viewer, onReplay }: Invocation): Promise<unknown> {
    const started = this.clock.now();
    // UUIDs are case-insensitive: one key in any case names one call, on every surface. The viewer goes
    // with the call, for a handler that reaches another operation's effect (it asks the catalog with it).
    const ctx: CallContext = { ...given, viewer };
    if (given.idempotencyKey) ctx.idempotencyKey = given.idempotencyKey.toLowerCase();
    // The idempotency key names the call, it is not one of its arguments: a retry digests the same.
    const args = withoutKey(input);
    const argsDigest = digestArguments(args);
    let error: string | undefined;
    let mayWrite = false;
    /** Set when what the answer depends on was made durable before the idempotency record was completed. */
    let settledBeforeRecord = false;
    try {
      const operation = this.callable(name, viewer);
      // A failed call may have written too (a failed order, a claimed key): both wait.
      mayWrite = !operation.annotations?.readOnly;
      const { idempotency } = this.options;
      const key = ctx.idempotencyKey;
      if (!key || !idempotency || !isGuarded(operation)) return await this.catalog.invoke(operation, ctx, input);
      // Validate first: a request refused as malformed never claims its key (Stripe does the same).
      const parsed = parseOperationInput(operation.input, input);
      // Every field, not the audit digest: that one leaves out secret-named fields (an approval's `token`).
      const { fingerprint, legacy } = requestFingerprint(name, args, this.options.fingerprintHash ?? sha256Hex);
      const bound = boundContext(operation, ctx);
      // The handler's writes are flushed before its outcome is recorded, in the flush the events of
      // its commit wait for anyway; the record's own write need not be: if power loss takes it, a
      // retry runs the handler again once the key's claim is gone (held in memory by a sole writer,
      // else a stored claim, flushed with the handler's writes, lapses with its lease), and the
      // handler finds what the first run made (guarded handlers are re-entrant). So a guarded call
      // waits for one flush, not two.
      const task = async () => {
        const value = await operation.handler(bound, parsed);
        if (mayWrite) await this.options.settled?.();
        settledBeforeRecord = true;
        return value;
      };
      return await idempotency.run(`${bound.subject.type}:${bound.subject.id}`, key, fingerprint, task, {
        ...(onReplay ? { onReplay } : {}),
        ...(legacy ? { legacyFingerprint: legacy } : {}),
        ids: { requestId: ctx.requestId, correlationId: ctx.correlationId },
      });
    } catch (failure) {
      error = isAppError(failure) ? failure.code : 'INTERNAL_SERVICE_ERROR';
      throw failure;
    } finally {
      try {
        // An answer the client may act on (an order id, a wallet address it funds) must not
        // be undone by power loss; a store that cannot flush fails the call instead.
        if (mayWrite && !settledBeforeRecord) await this.options.settled?.();
      } catch (flush) {
        error = isAppError(flush) ? flush.code : 'INTERNAL_SERVICE_ERROR';
        // biome-ignore lint/correctness/noUnsafeFinally: a failed flush replaces the answer; the caller must not act on what may be lost.
        throw flush;
      } finally {
        this.record(name, ctx, argsDigest, started, error);
      }
    }
  }

  /**
   * The operation `viewer` may call by `name`; throws as `invoke` does otherwise: 404 `Tool
   * not found: <name>` (unknown or hidden) or 403 `Scope insufficient: ...`. A surface that
   * checks its own input first asks this before, so a hidden operation is never a 400.
   */
  callable(name: string, viewer: Viewer): AnyOperation {
    return this.catalog.callable(name, viewer);
  }

  /** The invoker's clock, for a surface that records a call it refused itself (`recordOutside`). */
  now(): number {
    return this.clock.now();
  }

  /**
   * Records a call answered outside the catalog: an MCP protocol method (`tools/list`,
   * `ping`...), or a call its surface refused before it got here (a `tools/call` over its
   * rate budget, a REST call on someone else's agent or with a malformed request). Every call is in the audit trail, answered or not; `error` is its code.
   */
  recordOutside(name: string, input: unknown, ctx: CallContext, started: number, error?: string): void {
    this.record(name, ctx, digestArguments(withoutKey(input)), started, error);
  }

  private record(name: string, ctx: CallContext, argsDigest: string, started: number, error: string | undefined): void {
    // Optional fields are set when present, not spread in: a conditional spread allocates a
    // throwaway object and copies it on every call, and every call is audited.
    const entry: AuditEntry = {
      at: started,
      surface: ctx.surface,
      operation: name,
      principal: principalRef(ctx),
      scope: ctx.scope,
      argsDigest,
      outcome: error ? 'error' : 'ok',
      latencyMs: this.clock.now() - started,
      requestId: ctx.requestId,
      correlationId: ctx.correlationId,
    };
    if ('prefix' in ctx.principal) entry.credentialPrefix = ctx.principal.prefix;
    if (ctx.subject) entry.subject = `${ctx.subject.type}:${ctx.subject.id}`;
    if (error) entry.error = error;
    this.audit.record(entry);
  }
}

function principalRef(ctx: CallContext): { type: string; id: string } {
  const principal = ctx.principal;
  switch (principal.type) {
    case 'session':
      return { type: 'session', id: principal.userId };
    case 'ops':
      return { type: 'ops', id: 'ops-token' };
    case 'system':
      return { type: 'system', id: principal.job };
    case 'widget-session':
      // A prefix of the token's hash names the session (the widget's event log uses the same).
      return { type: 'widget-session', id: principal.id.slice(0, 16) };
    default:
      return principalRefOf(principal);
  }
}

function withoutKey(input: unknown): unknown {
  // Most calls carry no key: the input as it is, not a copy of it.
  if (!isPlainObject(input) || !Object.hasOwn(input, IDEMPOTENCY_FIELD)) return input;
  const { [IDEMPOTENCY_FIELD]: _key, ...rest } = input;
  return rest;
}
