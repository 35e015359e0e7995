/**
 * The answers of idempotency that both the catalog's guard and the trading
 * pipeline give (the order a key placed outlives the key's record): one wording, in the
 * error model, so the domain need not know the catalog.
 */
export const IDEMPOTENCY_MESSAGES = {
  mismatch: 'Idempotency key was already used with a different request',
  inProgress: 'A request with this idempotency key is still in progress; retry later',
} as const;
