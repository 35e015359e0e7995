import { createHash, randomBytes } from 'node:crypto';

/**
 * One format for every order id the trading core draws or derives: `ord_` and 24 base64url
 * characters (144 bits), whether random (a call without an idempotency key), derived from
 * an account and an idempotency key, or a later attempt under that key. Ids stored in the
 * formats used before (16 random characters; `<id>.<n>` attempts) are still looked up as
 * they are: an id is only ever a key, never parsed.
 */
const ID_BYTES = 18;

/** A fresh unguessable order id. */
export function newOrderId(): string {
  return `ord_${randomBytes(ID_BYTES).toString('base64url')}`;
}

/** The order id a `seed` stands for, the same on every process and retry (SHA-256, cut to the same 24 characters). */
export function derivedOrderId(seed: string): string {
  return `ord_${createHash('sha256').update(seed).digest('base64url').slice(0, (ID_BYTES * 4) / 3)}`;
}

/** Attempt `n` (2, 3...) of a keyed order whose first attempt is `orderId`. */
export function attemptOrderId(orderId: string, n: number): string {
  return derivedOrderId(`${orderId}|attempt:${n}`);
}

/** How attempt `n` was named before (`<id>.<n>`): an order placed under that name is still found. */
export function legacyAttemptOrderId(orderId: string, n: number): string {
  return `${orderId}.${n}`;
}
