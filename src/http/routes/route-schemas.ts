import type { Request } from 'express';
import { AppError } from '../../errors/app-error.js';
import { z } from 'zod';

/** `?limit=&cursor=` of every listing route. */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: z.string().min(1).max(1024).optional(),
});

/** A 6-digit TOTP code (interface section 8). */
export const codeBodySchema = z.object({ code: z.string().regex(/^\d{6}$/, 'must be 6 digits') }).strict();

/** Drops undefined entries (exactOptional-friendly page requests). */
export function page(query: z.infer<typeof pageQuerySchema>): { limit: number; cursor?: string } {
  return query.cursor ? { limit: query.limit, cursor: query.cursor } : { limit: query.limit };
}

/** A path parameter as a string (express types them loosely once handlers are spread). */
export function param(req: Request, name: string): string {
  const value = req.params[name];
  if (typeof value !== 'string' || value === '') throw AppError.notFound();
  return value;
}
