import type { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import { providerUnavailable } from './provider-breaker.js';

/**
 * One JSON exchange with a vendor HTTP API, shared by the aggregator adapters: transport
 * failures, 5xx, 429 and unreadable bodies become PROVIDER_UNAVAILABLE here; other 4xx
 * answers go back to the caller, which knows the vendor's business errors.
 */

export interface VendorResponse {
  status: number;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: unknown;
  headers: Headers;
}

export interface VendorRequest {
  provider: string;
  fetch: typeof fetch;
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  json?: unknown;
  signal?: AbortSignal;
}

/** Sends the request; resolves with 2xx and 4xx answers (other than 429), throws AppError otherwise. */
export async function vendorRequest(request: VendorRequest): Promise<VendorResponse> {
  const headers: Record<string, string> = { accept: 'application/json', ...request.headers };
  if (request.json !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  let text: string;
  try {
    response = await request.fetch(request.url, {
      method: request.method ?? 'GET',
      headers,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
    });
    // Read under the same signal, so a stalled body also times out.
    text = await response.text();
  } catch (error) {
    if (request.signal?.aborted) {
      const timedOut = request.signal.reason instanceof Error && request.signal.reason.name === 'TimeoutError';
      throw providerUnavailable(request.provider, timedOut ? 'request timed out' : 'request aborted', { cause: error });
    }
    throw providerUnavailable(request.provider, 'network error', { cause: error });
  }
  const body = parseJson(text);
  if (response.status === 429) {
    const retryAfter = retryAfterSeconds(response.headers);
    throw providerUnavailable(request.provider, 'rate limited', {
      details: { status: 429 },
      ...(retryAfter === undefined ? {} : { retryAfterSeconds: retryAfter }),
    });
  }
  if (response.status >= 500)
    throw providerUnavailable(request.provider, `HTTP ${response.status}`, { details: { status: response.status } });
  if (response.status >= 200 && response.status < 300 && body === undefined)
    throw providerUnavailable(request.provider, 'malformed JSON in response');
  if (response.status >= 300 && response.status < 400) throw providerUnavailable(request.provider, `unexpected HTTP ${response.status}`);
  return { status: response.status, body: body ?? text, headers: response.headers };
}

/** Validates a 2xx body; a shape we cannot read is the provider's fault, not the caller's. */
export function parseVendorBody<S extends z.ZodType>(provider: string, schema: S, body: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(body);
  if (!parsed.success)
    throw providerUnavailable(provider, `unexpected ${what} response shape`, {
      details: { issues: parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`) },
    });
  return parsed.data;
}

/** 400 for a refusal that retrying will not change (no route, invalid input). */
export function vendorRefusal(provider: string, message: string, details: Record<string, unknown> = {}): AppError {
  return new AppError('VALIDATION_ERROR', message, { retryable: false, details: { provider, ...details } });
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** `retry-after` in seconds or as an HTTP date; whole seconds, at least 1. */
function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.max(1, Math.ceil(Number(value)));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(1, Math.ceil((date - now) / 1000));
}
