import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { idempotencyKey, requiredIdempotencyKey } from '../../src/operations/definitions/trading-schemas.js';
import { defineOperation } from '../../src/operations/operation-definition.js';
import type { AnyOperation } from '../../src/operations/operation.types.js';

/** A money operation whose input the types cannot see through (as a catalog built at run time may hold). */
const moneyOperation = (input: z.ZodType): AnyOperation =>
  defineOperation({
    name: 'test_money_move',
    description: 'moves test money',
    family: 'trading',
    minScope: 'trade',
    principals: ['agent'],
    effect: 'funds',
    input,
    handler: async () => ({}),
    // The types refuse such a definition already; this is the check at run time behind them.
  } as never);

describe("an operation declared with effect 'funds'", () => {
  it('is refused at definition unless its input requires idempotencyKey', () => {
    const message = 'Operation test_money_move moves funds: its input must require idempotencyKey';
    expect(() => moneyOperation(z.object({ amount: z.string() }).strict())).toThrow(message);
    expect(() => moneyOperation(z.object({ amount: z.string(), idempotencyKey }).strict())).toThrow(message);
    expect(moneyOperation(z.object({ amount: z.string(), idempotencyKey: requiredIdempotencyKey }).strict()).effect).toBe('funds');
  });
});
