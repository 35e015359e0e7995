import { z } from 'zod';

/** A time in an operation's answer: ISO 8601 text (inputs that take a time validate it, see dca.ops.ts). */
export const isoTime = z.string().describe('ISO 8601 time');
