import { describe, expect, it } from 'vitest';
import { AppError, ERROR_CODES, type ErrorCode, isFaultKind } from '../../../kernel/errors/app-error.js';
import { httpStatusOf, kindOfStatus } from '../../../src/surface-common/http-status.js';

describe('AppError: a domain error with a kind, its status chosen at the edge', () => {
  it('carries no HTTP status of its own', () => {
    const error = new AppError('INSUFFICIENT_BALANCE', 'Insufficient balance');
    expect(Object.keys(error)).not.toContain('status');
    expect(error.kind).toBe('invalid');
  });

  it('keeps the wire statuses every code had', () => {
    const statuses = Object.fromEntries(
      (Object.keys(ERROR_CODES) as ErrorCode[]).map((code) => [code, httpStatusOf(new AppError(code, 'x'))]),
    );
    expect(statuses).toMatchObject({
      AUTHENTICATION_FAILED: 401,
      AUTHORIZATION_FAILED: 403,
      VALIDATION_ERROR: 400,
      RESOURCE_NOT_FOUND: 404,
      RESOURCE_CONFLICT: 409,
      INTERNAL_SERVICE_ERROR: 500,
      LLM_TOKEN_LIMIT_EXCEEDED: 413,
      RATE_LIMITED: 429,
      PROVIDER_UNAVAILABLE: 503,
      IDEMPOTENCY_MISMATCH: 422,
      TRADING_DISABLED: 200,
      KILL_SWITCH_ACTIVE: 503,
      ORDER_NOT_CANCELLABLE: 409,
      WIDGET_SESSION_EXPIRED: 401,
    });
  });

  it('derives retryable and refusal from the kind, not from a status', () => {
    const unavailable = new AppError('PROVIDER_UNAVAILABLE', 'down');
    expect([unavailable.retryable, unavailable.refusal]).toEqual([true, false]);
    const killSwitch = new AppError('KILL_SWITCH_ACTIVE', 'halted');
    expect([killSwitch.retryable, killSwitch.refusal]).toEqual([true, true]);
    const failed = new AppError('VALIDATION_ERROR', 'Order failed: x', { kind: 'unprocessable' });
    expect([httpStatusOf(failed), failed.retryable, failed.refusal]).toEqual([422, false, true]);
    const declined = new AppError('TRADING_DISABLED', 'off');
    expect([httpStatusOf(declined), declined.refusal, isFaultKind(declined.kind)]).toEqual([200, true, false]);
  });

  it('reads the bare status of a parser error back as a kind', () => {
    expect([422, 415, 413, 404, 503, 500, 418].map(kindOfStatus)).toEqual([
      'unprocessable',
      'unsupported_media',
      'too_large',
      'not_found',
      'unavailable',
      'internal',
      'invalid',
    ]);
  });
});
