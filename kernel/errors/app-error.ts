/**
 * The one error model of the service. Adapters, the runtime and handlers throw
 * `AppError`; the HTTP and MCP surfaces each map it to their envelopes in one place.
 */
import { escapeUnsafe } from '../shared/escape-unsafe.js';

/** How a surface should render the error (interface section 7.1). */
export type EnvelopeKind =
  /** `{statusCode, message, error}` */
  | 'standard'
  /** `{statusCode, message: string[], error: 'Bad Request'}` */
  | 'validation'
  /** standard plus `code` */
  | 'domain'
  /** `{success:false, error:{code, message, details:{retryable}}, meta}`; soft errors use it with 200 */
  | 'canonical';

/**
 * What kind of failure an error is, in the domain's words: the surfaces choose the wire status
 * from it (REST: src/surface-common/http-status.ts; MCP from that and its own rules), so nothing
 * below them names an HTTP status.
 */
export type ErrorKind =
  /** The request is malformed or a value is out of range. */
  | 'invalid'
  /** Well-formed, but carrying it out failed on its merits (an order or withdrawal that failed). */
  | 'unprocessable'
  /** No valid credential. */
  | 'unauthenticated'
  /** A valid credential that may not do this. */
  | 'forbidden'
  | 'not_found'
  /** The thing is in a state that does not allow this now, or a concurrent writer won. */
  | 'conflict'
  | 'too_large'
  /** The body is in an encoding or media type the service does not read. */
  | 'unsupported_media'
  | 'rate_limited'
  /** The service or a dependency cannot serve this now; a retry may succeed. */
  | 'unavailable'
  /** A fault of the service. */
  | 'internal'
  /**
   * The service answered and the answer is "no" (trading switched off): sent as a successful
   * response whose body says it failed, so clients read the reason instead of retrying.
   */
  | 'declined';

/** Stable codes (the interface's and the service's own), each with its default kind. */
export const ERROR_CODES = {
  AUTHENTICATION_FAILED: 'unauthenticated',
  AUTHORIZATION_FAILED: 'forbidden',
  TOKEN_VALIDATION_FAILED: 'unauthenticated',
  INVALID_CREDENTIALS: 'unauthenticated',
  VALIDATION_ERROR: 'invalid',
  RESOURCE_NOT_FOUND: 'not_found',
  RESOURCE_CONFLICT: 'conflict',
  INTERNAL_SERVICE_ERROR: 'internal',
  LLM_PROVIDER_NOT_FOUND: 'not_found',
  LLM_PROVIDER_UNAVAILABLE: 'unavailable',
  LLM_CIRCUIT_BREAKER_OPEN: 'unavailable',
  LLM_CONFIGURATION_ERROR: 'internal',
  LLM_RATE_LIMIT_EXCEEDED: 'rate_limited',
  LLM_TOKEN_LIMIT_EXCEEDED: 'too_large',
  // Service-specific codes.
  PAYLOAD_TOO_LARGE: 'too_large',
  RATE_LIMITED: 'rate_limited',
  PROVIDER_UNAVAILABLE: 'unavailable',
  DEPENDENCY_UNAVAILABLE: 'unavailable',
  /** An identity provider's token did not verify (onboarding; SDK `provider_auth_error`). */
  PROVIDER_AUTH_FAILED: 'unauthenticated',
  /** A compare-and-set write lost to a concurrent writer; retry on a fresh read. */
  VERSION_CONFLICT: 'conflict',
  /** The event is not accepted by the actor in its current state. */
  INVALID_TRANSITION: 'conflict',
  /** A persisted snapshot was written by a machine version this code cannot read. */
  SNAPSHOT_VERSION_UNSUPPORTED: 'internal',
  SHUTTING_DOWN: 'unavailable',
  /** Idempotency: same key, other request; same key while the first still runs. */
  IDEMPOTENCY_MISMATCH: 'unprocessable',
  IDEMPOTENCY_IN_PROGRESS: 'conflict',
  // Trading (the trading errors): the safety path names the check that stopped a request.
  TRADING_DISABLED: 'declined',
  TRADING_UNAVAILABLE: 'unavailable',
  KILL_SWITCH_ACTIVE: 'unavailable',
  WALLET_REQUIRED: 'invalid',
  TOKEN_NOT_FOUND: 'not_found',
  TOKEN_BLACKLISTED: 'invalid',
  INPUT_MINT_NOT_ALLOWED: 'invalid',
  RISK_LIMIT_EXCEEDED: 'invalid',
  SLIPPAGE_EXCEEDED: 'invalid',
  INSUFFICIENT_BALANCE: 'invalid',
  CIRCUIT_BREAKER_OPEN: 'unavailable',
  ORDER_NOT_APPROVABLE: 'conflict',
  ORDER_NOT_CANCELLABLE: 'conflict',
  /** A chat widget session past its hour: the widget starts a new one. */
  WIDGET_SESSION_EXPIRED: 'unauthenticated',
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface AppErrorOptions {
  /** Overrides the code's default kind (`ERROR_CODES`). */
  kind?: ErrorKind;
  envelope?: EnvelopeKind;
  retryable?: boolean;
  /** Validation messages for the validation envelope. */
  messages?: string[];
  details?: Record<string, unknown>;
  /**
   * The next step, in English, for a refusal whose message is fixed or
   * short: surfaces send it as `details.hint` (REST) and `hint` (MCP), beside the message.
   */
  hint?: string;
  /** For 429/503: seconds the caller should wait; surfaces render it as `Retry-After`. */
  retryAfterSeconds?: number;
  /** An idempotent replay of a failure: the ids of the first response, which its body repeats. */
  firstRequest?: RequestIds;
  /** Headers the refusal's response carries besides `Retry-After` (a 429's `X-RateLimit-*`). */
  headers?: Record<string, string>;
  /** Overrides the default of `AppError.refusal` (see there). */
  refusal?: boolean;
  cause?: unknown;
}

/** The ids a canonical envelope carries in `meta`. */
export interface RequestIds {
  requestId: string;
  correlationId: string;
}

/**
 * Codes the interface names as canonical-envelope codes (7.1: "not shown beyond
 * `PROVIDER_UNAVAILABLE`"): they use it unless the thrower says otherwise.
 */
const CANONICAL_BY_DEFAULT: ReadonlyMap<ErrorCode, EnvelopeKind> = new Map([['PROVIDER_UNAVAILABLE', 'canonical']]);

/**
 * Codes of the fault kinds that are still the service saying no on purpose: the kill switch
 * an operator threw and a circuit breaker holding calls back.
 */
const REFUSING_FAULT_KINDS: ReadonlySet<ErrorCode> = new Set(['KILL_SWITCH_ACTIVE', 'CIRCUIT_BREAKER_OPEN', 'LLM_CIRCUIT_BREAKER_OPEN']);

/**
 * The kinds where the service, not the request, is why it did not happen (what HTTP calls a
 * 5xx): the caller did nothing wrong and the same request may succeed later.
 */
export function isFaultKind(kind: ErrorKind): boolean {
  return kind === 'internal' || kind === 'unavailable';
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly kind: ErrorKind;
  readonly envelope: EnvelopeKind;
  readonly retryable: boolean;
  readonly messages: string[] | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly hint: string | undefined;
  readonly retryAfterSeconds: number | undefined;
  readonly firstRequest: RequestIds | undefined;
  readonly headers: Record<string, string> | undefined;
  /**
   * True when the service declined the request on purpose, by a rule or a state it keeps
   * (the safety path: trading off, kill switch, breaker, balance, slippage, risk limits and
   * caps, blacklist, approval rules, withdrawal settings; and every other 4xx answer), false
   * for a fault: something that failed while carrying it out (a 5xx, a dependency down, a
   * bug). A refusal is an answer to show the caller; a fault is a failure to execute. Default:
   * every kind but `internal` and `unavailable`, and of those the kill switch and open breakers.
   */
  readonly refusal: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    // Messages quote input (a token, a field name, a path): none carries a control or bidi character out.
    super(escapeUnsafe(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.kind = options.kind ?? ERROR_CODES[code];
    this.envelope = options.envelope ?? CANONICAL_BY_DEFAULT.get(code) ?? 'domain';
    this.retryable = options.retryable ?? (this.kind === 'unavailable' || this.kind === 'rate_limited');
    this.messages = options.messages?.map((line) => escapeUnsafe(line));
    this.details = options.details;
    this.hint = options.hint;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.firstRequest = options.firstRequest;
    this.headers = options.headers;
    this.refusal = options.refusal ?? (!isFaultKind(this.kind) || REFUSING_FAULT_KINDS.has(code));
  }

  /** Invalid input, with the validation envelope (`message` is an array of strings). */
  static validation(messages: string[], hint?: string): AppError {
    return new AppError('VALIDATION_ERROR', messages.join('; '), {
      envelope: 'validation',
      messages,
      ...(hint === undefined ? {} : { hint }),
    });
  }

  /**
   * `Circuit breaker open for provider: <provider>` (the trading errors): one wording and one
   * shape (`details.provider`, `Retry-After`) for every breaker.
   */
  static circuitBreakerOpen(
    provider: string,
    retryAfterSeconds: number,
    options: { code?: 'CIRCUIT_BREAKER_OPEN' | 'LLM_CIRCUIT_BREAKER_OPEN'; cause?: unknown } = {},
  ): AppError {
    return new AppError(options.code ?? 'CIRCUIT_BREAKER_OPEN', `Circuit breaker open for provider: ${provider}`, {
      details: { provider },
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)),
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
  }

  static notFound(message = 'Not Found'): AppError {
    return new AppError('RESOURCE_NOT_FOUND', message, { envelope: 'standard' });
  }

  static unauthorized(message = 'Unauthorized'): AppError {
    return new AppError('AUTHENTICATION_FAILED', message, { envelope: 'standard' });
  }

  static forbidden(message = 'Forbidden'): AppError {
    return new AppError('AUTHORIZATION_FAILED', message, { envelope: 'standard' });
  }

  /** `Scope insufficient: required trade, got read` (the auth and key errors); scopes are `read`, `trade`, `manage`. */
  static scopeInsufficient(required: string, got: string): AppError {
    return AppError.forbidden(`Scope insufficient: required ${required}, got ${got}`);
  }

  static conflict(message: string): AppError {
    return new AppError('RESOURCE_CONFLICT', message);
  }

  static internal(message = 'Internal server error', cause?: unknown): AppError {
    return new AppError('INTERNAL_SERVICE_ERROR', message, { envelope: 'standard', cause });
  }
}

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}
