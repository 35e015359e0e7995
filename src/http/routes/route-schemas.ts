import type { RequestHandler } from 'express';
import { z } from 'zod';
import { objectBody, validate } from '../validate.js';

/** The query string (or body) of a route that takes none: any field is `<name> is not a known field`. */
export const noQuerySchema = z.object({}).strict();

/** Middleware of a route that takes no query string (after authentication: a 401 comes first). */
export const noQuery: RequestHandler = (req, _res, next) => {
  validate(noQuerySchema, req.query);
  next();
};

/** Middleware of a route that takes no body fields: none, `{}`, or a 400 naming each field sent. */
export const noBody: RequestHandler = (req, _res, next) => {
  validate(noQuerySchema, objectBody(req));
  next();
};

/** A 6-digit TOTP code (interface section 8). */
export const codeBodySchema = z.object({ code: z.string().regex(/^\d{6}$/, 'must be 6 digits') }).strict();
