/**
 * One HTTP exchange with retries: the request, its timeout, the mapping of the answer onto
 * the codes of the SDK error mapping, and the retry loop (network errors and 429s only, the same
 * idempotency key every attempt). REST and MCP calls both go through it.
 */
import { SdkError, type SdkErrorCode } from './errors.js';
import { retryDelayMs, type SdkRuntime } from './runtime.js';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Path with query string, appended to the base URL. */
  path: string;
  body?: unknown;
  /** Headers of every attempt, computed per attempt: a token may be renewed between two. */
  headers?: () => Promise<Record<string, string>> | Record<string, string>;
  /** Browsers: send cookies (the pre-login CSRF cookie). */
  withCookies?: boolean;
  /** A 401 here is the identity provider refusing its token: `provider_auth_error`. */
  providerAuth?: boolean;
  /** A conditional GET (`If-None-Match`): a 304 is an answer, with no body, not an `invalid_response`. */
  conditional?: boolean;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  /** Attempts in all for this call (default: the runtime's policy). */
  maxAttempts?: number | undefined;
}

export interface HttpAnswer {
  status: number;
  headers: Headers;
  /** Parsed JSON body; never empty (an empty one is `invalid_response`), except the `undefined` of a 304 to a conditional request. */
  body: unknown;
}

/** Called once per retry with the error that caused it and the wait chosen; tests and logs watch it. */
export type RetryObserver = (event: { attempt: number; delayMs: number; error: SdkError }) => void;

/**
 * Node exposes `Set-Cookie`; browsers keep cookies themselves (`credentials: 'include'`). The
 * jar honours `Path` (the refresh cookie goes to the refresh route only) and `Max-Age=0`.
 */
interface CookieJar {
  header(path: string): string | undefined;
  take(headers: Headers): void;
}

/** RFC 6265 path-match: the cookie's path is the request path or a segment prefix of it. */
const onPath = (path: string, cookiePath: string): boolean =>
  path === cookiePath || (path.startsWith(cookiePath) && (cookiePath.endsWith('/') || path[cookiePath.length] === '/'));

function cookieJar(): CookieJar {
  const cookies = new Map<string, { value: string; path: string }>();
  return {
    header: (requestPath) => {
      const path = requestPath.split('?')[0] ?? '/';
      const sent = [...cookies].filter(([, cookie]) => onPath(path, cookie.path));
      return sent.length ? sent.map(([name, cookie]) => `${name}=${cookie.value}`).join('; ') : undefined;
    },
    take: (headers) => {
      const list = typeof headers.getSetCookie === 'function' ? headers.getSetCookie() : [];
      for (const line of list) {
        const [pair = '', ...parts] = line.split(';').map((part) => part.trim());
        const at = pair.indexOf('=');
        if (at <= 0) continue;
        const name = pair.slice(0, at);
        const attribute = (key: string) => parts.find((part) => part.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
        const maxAge = attribute('max-age');
        if (maxAge !== undefined && Number(maxAge) <= 0) cookies.delete(name);
        else cookies.set(name, { value: pair.slice(at + 1), path: attribute('path') || '/' });
      }
    },
  };
}

export class HttpTransport {
  private readonly cookies = cookieJar();
  onRetry: RetryObserver | undefined;

  constructor(
    readonly baseUrl: string,
    readonly runtime: SdkRuntime,
  ) {}

  /** The request, retried on `network_error` and `rate_limit_error` as the policy allows. */
  async send(request: HttpRequest): Promise<HttpAnswer> {
    const policy = this.runtime.retry;
    const maxAttempts = Math.max(1, request.maxAttempts ?? policy.maxAttempts);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.once(request);
      } catch (error) {
        if (!(error instanceof SdkError) || !error.retryable || attempt >= maxAttempts) throw error;
        const delayMs = retryDelayMs(policy, attempt, this.runtime.random, error.retryAfter);
        if (error.retryAfter !== undefined && error.retryAfter * 1000 > policy.maxRetryAfterMs) throw error;
        this.onRetry?.({ attempt, delayMs, error });
        await this.runtime.clock.sleep(delayMs, request.signal);
      }
    }
  }

  /** One attempt: the response mapped to a body or an SdkError; the timeout covers reading the body too. */
  async once(request: HttpRequest): Promise<HttpAnswer> {
    const exchange = await this.open(request);
    let text: string;
    try {
      text = await exchange.response.text();
    } catch (error) {
      throw exchange.failure(error, `Reading the answer failed`);
    } finally {
      exchange.done();
    }
    if (request.conditional && exchange.response.status === 304)
      return { status: 304, headers: exchange.response.headers, body: undefined };
    return mapAnswer(exchange.response, text, request.providerAuth === true);
  }

  /**
   * Starts one attempt and answers once the headers are in. Its timeout runs until `done()`
   * (a stream calls it once open, then reads on with only the caller's signal to stop it);
   * network failures become `network_error`, the caller's abort rejects with its reason.
   */
  async open(request: HttpRequest, extraHeaders: Record<string, string> = {}): Promise<Exchange> {
    const timeoutMs = request.timeoutMs ?? this.runtime.timeoutMs;
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal?.reason);
    if (request.signal?.aborted) throw request.signal.reason;
    request.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new TimeoutMarker(timeoutMs)), timeoutMs);
    const failure = (error: unknown, what: string): unknown => {
      if (request.signal?.aborted) return request.signal.reason;
      if (controller.signal.reason instanceof TimeoutMarker) {
        return new SdkError('network_error', { status: 0, message: `Request timed out after ${timeoutMs} ms`, cause: error });
      }
      if (error instanceof SdkError) return error;
      return new SdkError('network_error', { status: 0, message: `${what}: ${messageOf(error)}`, cause: error });
    };
    try {
      const cookie = this.cookies.header(request.path);
      const headers: Record<string, string> = {
        accept: 'application/json',
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(cookie ? { cookie } : {}),
        ...(await request.headers?.()),
        ...extraHeaders,
      };
      const response = await this.runtime.fetch(`${this.baseUrl}${request.path}`, {
        method: request.method,
        headers,
        signal: controller.signal,
        ...(request.withCookies ? { credentials: 'include' as const } : {}),
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      });
      this.cookies.take(response.headers);
      return { response, failure, done: () => clearTimeout(timer), abort: () => controller.abort() };
    } catch (error) {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      throw failure(error, 'Request failed');
    }
  }
}

/** One attempt in flight. */
export interface Exchange {
  response: Response;
  /** The error to throw for a failure while reading (network, timeout, or the caller's abort). */
  failure(error: unknown, what: string): unknown;
  /** Ends the timeout. */
  done(): void;
  /** Drops the connection. */
  abort(): void;
}

/** The reason of our own timeout's abort, told apart from the caller's. */
class TimeoutMarker extends Error {
  constructor(readonly ms: number) {
    super(`timed out after ${ms} ms`);
  }
}

const messageOf = (error: unknown) => {
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return error instanceof Error ? `${error.message}${cause}` : String(error);
};

/** `Retry-After` as seconds: an integer, or an HTTP date; `X-RateLimit-Reset` (seconds) when absent. */
function retryAfterOf(headers: Headers, now = Date.now()): number | undefined {
  const raw = headers.get('retry-after') ?? headers.get('x-ratelimit-reset');
  if (raw === null || raw.trim() === '') return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim());
  const date = Date.parse(raw);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The server's message and code from any envelope of the error envelopes (REST standard, validation, domain, canonical; JSON-RPC). */
export function describeFailure(body: unknown, fallback: string): { message: string; serverCode?: string | number } {
  if (!isObject(body)) return { message: fallback };
  const error = body.error;
  if (isObject(error)) {
    const message = typeof error.message === 'string' ? error.message : fallback;
    const code = error.code;
    return typeof code === 'string' || typeof code === 'number' ? { message, serverCode: code } : { message };
  }
  const message = Array.isArray(body.message) ? body.message.join('; ') : typeof body.message === 'string' ? body.message : fallback;
  return typeof body.code === 'string' ? { message, serverCode: body.code } : { message };
}

/**
 * An answer onto a body or an SdkError (the SDK error mapping): 401 → `auth_error` (`provider_auth_error`
 * on an identity-provider exchange), 403 → `policy_error`, 429 → `rate_limit_error` with
 * `retryAfter`; an empty or non-JSON body → `invalid_response`; the canonical failure
 * envelope (`success: false`, even with 200) → `execution_error`; any other status → `unknown_error`.
 */
export function mapAnswer(response: Response, text: string, providerAuth: boolean): HttpAnswer {
  const { status } = response;
  let body: unknown;
  let parsed = false;
  if (text.trim() !== '') {
    try {
      body = JSON.parse(text);
      parsed = true;
    } catch {
      body = text;
    }
  }
  const failure = (code: SdkErrorCode, extra: { retryAfter?: number } = {}) => {
    const { message, serverCode } = describeFailure(body, parsed ? response.statusText || `HTTP ${status}` : `HTTP ${status}`);
    return new SdkError(code, { status, message, body, ...(serverCode === undefined ? {} : { serverCode }), ...extra });
  };
  if (status === 401) throw failure(providerAuth ? 'provider_auth_error' : 'auth_error');
  if (status === 403) throw failure('policy_error');
  if (status === 429) {
    const retryAfter = retryAfterOf(response.headers);
    throw failure('rate_limit_error', retryAfter === undefined ? {} : { retryAfter });
  }
  if (!parsed) {
    const what =
      text.trim() === ''
        ? 'an empty body'
        : `a body that is not JSON (${(response.headers.get('content-type') ?? 'no content type').split(';')[0]})`;
    throw new SdkError('invalid_response', { status, message: `The service answered ${status} with ${what}`, body });
  }
  if (status < 200 || status >= 300) throw failure('unknown_error');
  if (isObject(body) && body.success === false && isObject(body.error)) throw failure('execution_error');
  return { status, headers: response.headers, body };
}
