import { createHash, randomBytes } from 'node:crypto';

/**
 * One format for the ids the service draws or derives: `<prefix>_` and 24 base64url characters
 * (144 bits). Orders (`ord_`) are drawn at random (a call without an idempotency key), derived
 * from an account and an idempotency key, a later attempt under that key, or a DCA tick's
 * order; withdrawals (`wd_`), wallets, deposits and public ids take the same two helpers.
 * Ids stored in the formats used before (16 random characters; `<id>.<n>` attempts;
 * `ord_<strategyId>_<dueAt>` for DCA ticks) are still looked up as they are: an id is only
 * ever a key, never parsed.
 */
const ID_BYTES = 18;

/**
 * `<prefix>_` and 24 base64url characters (144 bits) drawn at random: the one id format of
 * orders and withdrawals alike.
 */
export function randomId(prefix: string): string {
  return `${prefix}_${randomBytes(ID_BYTES).toString('base64url')}`;
}

/**
 * The id a `seed` stands for, in the format of `randomId`: SHA-256 of the seed cut to the same
 * 24 characters, so it is the same on every process and retry. Ids already stored were made
 * this way: changing it would lose them.
 */
export function derivedId(prefix: string, seed: string): string {
  return `${prefix}_${createHash('sha256')
    .update(seed)
    .digest('base64url')
    .slice(0, (ID_BYTES * 4) / 3)}`;
}

/** A fresh unguessable order id. */
export function newOrderId(): string {
  return randomId('ord');
}

/** The order id a `seed` stands for, the same on every process and retry. */
export function derivedOrderId(seed: string): string {
  return derivedId('ord', seed);
}

/** Attempt `n` (2, 3...) of a keyed order whose first attempt is `orderId`. */
export function attemptOrderId(orderId: string, n: number): string {
  return derivedOrderId(`${orderId}|attempt:${n}`);
}

/** How attempt `n` was named before (`<id>.<n>`): an order placed under that name is still found. */
export function legacyAttemptOrderId(orderId: string, n: number): string {
  return `${orderId}.${n}`;
}

/**
 * The order of a DCA strategy's tick due at `dueAt` (epoch ms): the same on every delivery
 * of that tick, so a tick delivered twice buys once. Its seed starts `dca-strategy:`, which no
 * idempotency-key seed (`agent:` / `bot:`) or attempt seed (`ord_…`) does.
 */
export function dcaOrderId(strategyId: string, dueAt: number): string {
  return derivedOrderId(`dca-strategy:${strategyId}|tick:${dueAt}`);
}

/** How a DCA tick's order was named before (`ord_<strategyId>_<dueAt>`): an order placed under that name is still found. */
export function legacyDcaOrderId(strategyId: string, dueAt: number): string {
  return `ord_${strategyId}_${dueAt}`;
}
