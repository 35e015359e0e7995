import type { z } from 'zod';
import type { AnyOperation, Operation, UnboundOperation } from './operation.types.js';

/**
 * A guarded operation declares an `idempotencyKey` input field; MCP
 * callers pass it as an argument, REST callers as `X-Idempotency-Key`. It is required where
 * the operation moves funds (`effect: 'funds'`), optional elsewhere (a wallet's creation).
 */
export const IDEMPOTENCY_FIELD = 'idempotencyKey' as const;

/** True when the operation is guarded by an idempotency key (required or not). */
export function isGuarded(operation: AnyOperation): boolean {
  const shape = (operation.input as { shape?: Record<string, unknown> }).shape;
  return shape !== undefined && IDEMPOTENCY_FIELD in shape;
}

/**
 * Declares an operation with its input type inferred from the schema.
 *
 * Every input property carries its own description (`.describe()`), written for a model or
 * developer calling the tool: what the value is, its unit or format (base units or whole
 * tokens; symbol or address; UUID v4), its default and the limits worth knowing.
 * `test/mcp/tool-schemas.test.ts` fails on an undescribed one. Call `.describe()` last,
 * after `.optional()`, `.default()` or `.refine()`: the outermost description is the one
 * `tools/list` and the OpenAPI document show. A shared piece that means the same
 * everywhere is described once (`idempotencyKey`, `pageFields`, `signalSource`); a piece
 * that also appears in outputs, or means different things in different fields (`tokenRef`,
 * `chain`), is described at the field. Amounts take `amountOf` (trading-schemas.ts).
 */
export function defineOperation<N extends string, I extends z.ZodType, O>(
  operation: Operation<I, O> & { name: N } & KeyedWhenFunds<I>,
): Operation<I, O> & { name: N } {
  assertKeyedWhenFunds(operation);
  return operation;
}

/** Declares an operation without a subject; the invoker never calls an `account` one without one. */
export function defineUnboundOperation<N extends string, I extends z.ZodType, O>(
  operation: UnboundOperation<I, O> & { name: N } & KeyedWhenFunds<I>,
): Operation<I, O> & { name: N } {
  assertKeyedWhenFunds(operation);
  // A CallContext handler accepts every OperationContext: widening the parameter is safe.
  return operation as Operation<I, O> & { name: N };
}

/** `effect: 'funds'` compiles only on an input that requires the key (`requiredIdempotencyKey`). */
type KeyedWhenFunds<I extends z.ZodType> = z.input<I> extends { [IDEMPOTENCY_FIELD]: string } ? unknown : { effect?: undefined };

/** The same rule when the module loads, for an input the types cannot see through. */
function assertKeyedWhenFunds(operation: Pick<AnyOperation, 'name' | 'input' | 'effect'>): void {
  if (operation.effect !== 'funds') return;
  const key = (operation.input as { shape?: Record<string, z.ZodType> }).shape?.[IDEMPOTENCY_FIELD];
  if (!key || key.safeParse(undefined).success)
    throw new Error(`Operation ${operation.name} moves funds: its input must require ${IDEMPOTENCY_FIELD}`);
}
