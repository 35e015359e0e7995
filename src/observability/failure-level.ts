/**
 * How loudly a failure is logged. Error level is for what an operator must act on (a bug, a
 * store that does not flush), never for an answer the service was asked to give: a refusal
 * (any 4xx, a scope, trading switched off, the kill switch) is the service working, and shows
 * in the access line at info. A dependency that is down (503 with retry) is a warning.
 */
import { isAppError, isFaultKind, type ErrorCode } from '../../kernel/errors/app-error.js';

export type FailureLevel = 'info' | 'warn' | 'error';

/** 5xx codes that are decisions of the service or its operator, not faults. */
const REFUSAL_CODES: ReadonlySet<ErrorCode> = new Set(['KILL_SWITCH_ACTIVE', 'TRADING_DISABLED', 'SHUTTING_DOWN']);

/** 5xx codes of an outside system that is unavailable for now (callers retry). */
const DEPENDENCY_CODES: ReadonlySet<ErrorCode> = new Set([
  'PROVIDER_UNAVAILABLE',
  'DEPENDENCY_UNAVAILABLE',
  'CIRCUIT_BREAKER_OPEN',
  'TRADING_UNAVAILABLE',
  'LLM_PROVIDER_UNAVAILABLE',
  'LLM_CIRCUIT_BREAKER_OPEN',
]);

/** The level of `error` as it ended a request; anything not an AppError is unexpected. */
export function failureLevel(error: unknown): FailureLevel {
  if (!isAppError(error)) return 'error';
  if (!isFaultKind(error.kind) || REFUSAL_CODES.has(error.code)) return 'info';
  return DEPENDENCY_CODES.has(error.code) ? 'warn' : 'error';
}

/** The access line's level from the status alone, when no failure says more. */
export function statusLevel(status: number): FailureLevel {
  return status >= 500 ? 'error' : 'info';
}
