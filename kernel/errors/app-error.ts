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

/** Stable codes: the interface's (7.6) plus the service's own. */
export const ERROR_CODES = {
  AUTHENTICATION_FAILED: 401,
  AUTHORIZATION_FAILED: 403,
  TOKEN_VALIDATION_FAILED: 401,
  INVALID_CREDENTIALS: 401,
  VALIDATION_ERROR: 400,
  RESOURCE_NOT_FOUND: 404,
  RESOURCE_CONFLICT: 409,
  INTERNAL_SERVICE_ERROR: 500,
  LLM_PROVIDER_NOT_FOUND: 404,
  LLM_PROVIDER_UNAVAILABLE: 503,
  LLM_CIRCUIT_BREAKER_OPEN: 503,
  LLM_CONFIGURATION_ERROR: 500,
  LLM_RATE_LIMIT_EXCEEDED: 429,
  LLM_TOKEN_LIMIT_EXCEEDED: 413,
  // Service-specific codes.
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  PROVIDER_UNAVAILABLE: 503,
  DEPENDENCY_UNAVAILABLE: 503,
  /** An identity provider's token did not verify (onboarding; SDK `provider_auth_error`). */
  PROVIDER_AUTH_FAILED: 401,
  /** A compare-and-set write lost to a concurrent writer; retry on a fresh read. */
  VERSION_CONFLICT: 409,
  /** The event is not accepted by the actor in its current state. */
  INVALID_TRANSITION: 409,
  /** A persisted snapshot was written by a machine version this code cannot read. */
  SNAPSHOT_VERSION_UNSUPPORTED: 500,
  SHUTTING_DOWN: 503,
  /** Idempotency: same key, other request; same key while the first still runs. */
  IDEMPOTENCY_MISMATCH: 422,
  IDEMPOTENCY_IN_PROGRESS: 409,
  // Trading (the trading errors): the safety path names the check that stopped a request.
  TRADING_DISABLED: 200,
  TRADING_UNAVAILABLE: 503,
  KILL_SWITCH_ACTIVE: 503,
  WALLET_REQUIRED: 400,
  TOKEN_NOT_FOUND: 404,
  TOKEN_BLACKLISTED: 400,
  INPUT_MINT_NOT_ALLOWED: 400,
  RISK_LIMIT_EXCEEDED: 400,
  SLIPPAGE_EXCEEDED: 400,
  INSUFFICIENT_BALANCE: 400,
  CIRCUIT_BREAKER_OPEN: 503,
  ORDER_NOT_APPROVABLE: 409,
  ORDER_NOT_CANCELLABLE: 409,
  /** A chat widget session past its hour: the widget starts a new one. */
  WIDGET_SESSION_EXPIRED: 401,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface AppErrorOptions {
  status?: number;
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
 * The 5xx codes that are still the service saying no on purpose, not a fault: the kill switch
 * an operator threw and a circuit breaker holding calls back.
 */
const REFUSING_5XX: ReadonlySet<ErrorCode> = new Set(['KILL_SWITCH_ACTIVE', 'CIRCUIT_BREAKER_OPEN', 'LLM_CIRCUIT_BREAKER_OPEN']);

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
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
   * every status below 500, and the 5xx codes of the kill switch and open breakers.
   */
  readonly refusal: boolean;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    // Messages quote input (a token, a field name, a path): none carries a control or bidi character out.
    super(escapeUnsafe(message), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code];
    this.envelope = options.envelope ?? CANONICAL_BY_DEFAULT.get(code) ?? 'domain';
    this.retryable = options.retryable ?? (this.status === 503 || this.status === 429);
    this.messages = options.messages?.map((line) => escapeUnsafe(line));
    this.details = options.details;
    this.hint = options.hint;
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.firstRequest = options.firstRequest;
    this.headers = options.headers;
    this.refusal = options.refusal ?? (this.status < 500 || REFUSING_5XX.has(code));
  }

  /** 400 with the validation envelope (`message` is an array of strings). */
  static validation(messages: string[], hint?: string): AppError {
    return new AppError('VALIDATION_ERROR', messages.join('; '), {
      envelope: 'validation',
      messages,
      ...(hint === undefined ? {} : { hint }),
    });
  }

  /**
   * 503 `Circuit breaker open for provider: <provider>` (the trading errors): one wording and one
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

  /** 403 `Scope insufficient: required trade, got read` (the auth and key errors); scopes are `read`, `trade`, `manage`. */
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
