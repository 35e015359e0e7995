import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';

/**
 * Wire shapes of the OpenAI chat-completions API (and the servers that copy it) and the
 * translation of its failures into the LLM error codes of `llm.port.ts`. Unknown fields
 * are stripped, not refused: compatible servers add their own.
 */

export const chatCompletionSchema = z.object({
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative(),
      completion_tokens: z.number().int().nonnegative(),
      total_tokens: z.number().int().nonnegative(),
    })
    .nullish(),
});

/** `{error: {message, type, param, code}}`; every part optional because not every server sends it. */
const vendorErrorSchema = z.object({
  error: z.object({
    type: z.string().nullish(),
    code: z.union([z.string(), z.number()]).nullish(),
    message: z.string().nullish(),
  }),
});

interface VendorError {
  type?: string;
  code?: string;
  message?: string;
}

/** The vendor error body, if it has the documented shape. */
function readVendorError(body: string): VendorError {
  try {
    const parsed = vendorErrorSchema.safeParse(JSON.parse(body));
    if (!parsed.success) return {};
    const { type, code, message } = parsed.data.error;
    return { ...(type ? { type } : {}), ...(code != null ? { code: String(code) } : {}), ...(message ? { message } : {}) };
  } catch {
    return {};
  }
}

const CONTEXT_LENGTH = /context[_ ]length|maximum context|too many tokens|reduce the length/i;
/** Used when a 429 names no wait: the shortest wait a client can honour. */
const DEFAULT_RETRY_AFTER_SECONDS = 1;

/**
 * Maps a non-2xx answer to an `AppError`. Vendor messages are kept out of our message
 * (a 401 text can echo part of the key); `type` and `code` go into details for operators.
 */
export function translateVendorError(provider: string, status: number, headers: Headers, body: string): AppError {
  const vendor = readVendorError(body);
  const details = {
    provider,
    status,
    ...(vendor.type ? { vendorType: vendor.type } : {}),
    ...(vendor.code ? { vendorCode: vendor.code } : {}),
  };
  if (status === 401 || status === 403) {
    return new AppError('LLM_CONFIGURATION_ERROR', `LLM provider ${provider} rejected the credentials (HTTP ${status})`, {
      details,
      retryable: false,
    });
  }
  if (status === 429) {
    // Exhausted quota is billing, not throttling: waiting does not help.
    if (vendor.code === 'insufficient_quota' || vendor.type === 'insufficient_quota') {
      return new AppError('LLM_CONFIGURATION_ERROR', `LLM provider ${provider} quota exhausted`, { details, retryable: false });
    }
    return new AppError('LLM_RATE_LIMIT_EXCEEDED', `Rate limit exceeded for LLM provider: ${provider}`, {
      details,
      retryAfterSeconds: retryAfterSeconds(headers) ?? DEFAULT_RETRY_AFTER_SECONDS,
    });
  }
  if (status === 413 || vendor.code === 'context_length_exceeded' || (status === 400 && CONTEXT_LENGTH.test(vendor.message ?? ''))) {
    return new AppError('LLM_TOKEN_LIMIT_EXCEEDED', `Token limit exceeded for LLM provider: ${provider}`, { details, retryable: false });
  }
  if (status === 400 || status === 404 || status === 422) {
    return new AppError('LLM_CONFIGURATION_ERROR', `LLM provider ${provider} rejected the request (HTTP ${status})`, {
      details,
      retryable: false,
    });
  }
  return unavailable(provider, `HTTP ${status}`, details);
}

/** 503 for everything that is the provider's fault and may pass: 5xx, network, timeout, garbage. */
export function unavailable(provider: string, reason: string, details: Record<string, unknown> = { provider }, cause?: unknown): AppError {
  return new AppError('LLM_PROVIDER_UNAVAILABLE', `LLM provider unavailable: ${provider} (${reason})`, { details, cause });
}

/** `retry-after-ms`, else `retry-after` in seconds or as an HTTP date; whole seconds, at least 1. */
export function retryAfterSeconds(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms'));
  if (headers.has('retry-after-ms') && Number.isFinite(ms) && ms >= 0) return Math.max(1, Math.ceil(ms / 1000));
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.max(1, Math.ceil(Number(value)));
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(1, Math.ceil((date - now) / 1000));
}
