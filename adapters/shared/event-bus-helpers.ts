import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import type { BusEvent, BusEventInput, RetentionPolicy } from '../../kernel/ports/event-bus.port.js';
import { deepFreeze } from '../../kernel/shared/deep-freeze.js';

/** Where a bus reports what it survived (a throwing handler, a malformed entry); never throws. */
export type EventBusLogger = (message: string, context: Record<string, unknown>) => void;

// Dot-namespaced lower case (`order.updated`): the SSE `event` field is built from it.
const EVENT_TYPE = /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/;

/** The stored, wire-side shape of an event without its stream and id (they come from the key). */
export const busEventBodySchema = z.object({
  type: z.string().regex(EVENT_TYPE),
  data: z.record(z.string(), z.unknown()),
  at: z.number().nonnegative(),
});

export type BusEventBody = z.infer<typeof busEventBodySchema>;

/** Refuses a bad stream or type at the door, and detaches `data` from the caller's object. */
export function toEventBody(stream: string, input: BusEventInput, at: number): BusEventBody {
  const problems: string[] = [];
  if (typeof stream !== 'string' || stream.length === 0) problems.push('stream must be a non-empty string');
  if (typeof input?.type !== 'string' || !EVENT_TYPE.test(input.type)) {
    problems.push('type must be dot-namespaced lower case, e.g. order.updated');
  }
  if (input?.data === null || typeof input?.data !== 'object' || Array.isArray(input.data)) {
    problems.push('data must be an object');
  }
  if (problems.length > 0) throw AppError.validation(problems);
  let data: Record<string, unknown>;
  try {
    // A JSON round trip makes every adapter deliver the same thing Redis would.
    data = JSON.parse(JSON.stringify(input.data)) as Record<string, unknown>;
  } catch (cause) {
    throw new AppError('VALIDATION_ERROR', 'data must be JSON-serializable', {
      envelope: 'validation',
      messages: ['data must be JSON-serializable'],
      cause,
    });
  }
  // Whole milliseconds, as the port promises, whatever clock was injected.
  return { type: input.type, data, at: Math.floor(at) };
}

/** Builds the event subscribers see: frozen, because one object is shared by all of them. */
export function toBusEvent(stream: string, id: number, body: BusEventBody): BusEvent {
  return deepFreeze({ stream, id, type: body.type, data: body.data, at: body.at });
}

/** `afterId` as an integer >= 0; a Last-Event-ID that is garbage means "from the start". */
export function normalizeAfterId(afterId: number | undefined): number {
  if (afterId === undefined || !Number.isFinite(afterId) || afterId < 0) return 0;
  return Math.floor(afterId);
}

/** Refuses a retention policy that would trim nonsensically (negative or fractional counts). */
export function checkRetention(policy: RetentionPolicy): RetentionPolicy {
  const ok = Number.isInteger(policy.minCount) && policy.minCount >= 0 && Number.isFinite(policy.maxAgeMs) && policy.maxAgeMs >= 0;
  if (!ok) throw AppError.internal('retention needs an integer minCount >= 0 and a maxAgeMs >= 0');
  return { minCount: policy.minCount, maxAgeMs: policy.maxAgeMs };
}

/** Calls a subscriber's handler so that its exception stays its own problem. */
export function invokeHandler(handler: (event: BusEvent) => void, event: BusEvent, logger: EventBusLogger | undefined): void {
  try {
    handler(event);
  } catch (error) {
    logger?.('event bus handler threw', { stream: event.stream, id: event.id, type: event.type, error });
  }
}
