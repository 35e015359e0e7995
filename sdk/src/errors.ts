/**
 * The SDK's one error type, with the codes of the SDK error mapping. Every failure a call can end in
 * is an `SdkError` except the caller's own abort, which rejects with the signal's reason.
 */
export type SdkErrorCode =
  | 'auth_error'
  | 'policy_error'
  | 'rate_limit_error'
  | 'provider_auth_error'
  | 'network_error'
  | 'execution_error'
  | 'invalid_response'
  | 'unknown_error';

/** The codes the SDK retries (the SDK error mapping); `execution_error` never is. */
export const RETRYABLE_CODES: ReadonlySet<SdkErrorCode> = new Set(['network_error', 'rate_limit_error']);

export interface SdkErrorInit {
  /** HTTP status of the answer; 0 when there was none (network errors). */
  status: number;
  /** The server's message, word for word (validation messages joined with `; `). */
  message: string;
  /** The server's own code when it sent one: `VALIDATION_ERROR`, a JSON-RPC code such as -32602, a tool error's code. */
  serverCode?: string | number;
  /**
   * Seconds the server asked to wait: `Retry-After` on `rate_limit_error`; a tool's refusal that
   * says when to try again (an open breaker) on `execution_error`, which the SDK still never retries.
   */
  retryAfter?: number;
  /** The server's answer as parsed (or its text when it was not JSON). */
  body?: unknown;
  cause?: unknown;
}

export class SdkError extends Error {
  override readonly name = 'SdkError';
  readonly status: number;
  readonly serverCode: string | number | undefined;
  readonly retryAfter: number | undefined;
  readonly body: unknown;

  constructor(
    readonly code: SdkErrorCode,
    init: SdkErrorInit,
  ) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.serverCode = init.serverCode;
    this.retryAfter = init.retryAfter;
    this.body = init.body;
  }

  /** Whether the SDK retries this error on its own. */
  get retryable(): boolean {
    return RETRYABLE_CODES.has(this.code);
  }
}

export const isSdkError = (error: unknown): error is SdkError => error instanceof SdkError;
