import { z } from 'zod';
import type { BusEvent } from '../../kernel/ports/event-bus.port.js';
import { busEventBodySchema, toBusEvent } from '../shared/event-bus-helpers.js';

/**
 * Reading events back from Redis. Anything there may have been written by another
 * version, another tool or a person with redis-cli, so it is validated, and what does not
 * validate comes back as `undefined` for the caller to skip and log, never to crash on.
 */

const liveMessageSchema = busEventBodySchema.extend({ id: z.number().int().positive() });

/** A pub/sub message: the body with its id spliced in by the publish script. */
export function decodeLiveMessage(stream: string, message: string): BusEvent | undefined {
  const live = liveMessageSchema.safeParse(parseJson(message));
  return live.success ? toBusEvent(stream, live.data.id, live.data) : undefined;
}

/** A log entry `<id>-0` with fields `at` and `body`; `id` comes from the entry id. */
export function decodeLogEntry(stream: string, id: number, fields: string[]): BusEvent | undefined {
  if (!Number.isSafeInteger(id) || id <= 0) return undefined;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    if (fields[i] === 'body') {
      const body = busEventBodySchema.safeParse(parseJson(fields[i + 1]!));
      return body.success ? toBusEvent(stream, id, body.data) : undefined;
    }
  }
  return undefined;
}

function parseJson(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}
