import { z } from 'zod';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { CallContext } from '../operation.types.js';

/** The page request without undefined entries (exact optional property types). */
export function pageOf(input: { limit: number; cursor?: string | undefined }): { limit: number; cursor?: string } {
  return input.cursor ? { limit: input.limit, cursor: input.cursor } : { limit: input.limit };
}

/** The signed-in user behind an operator's call; a call without one is refused. */
export function userOf(ctx: CallContext): string {
  if (!ctx.userId) throw AppError.forbidden();
  return ctx.userId;
}

export const emptyInput = z.object({}).strict();
