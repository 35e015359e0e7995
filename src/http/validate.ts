/**
 * zod validation that fails with `AppError.validation`, so route handlers stay one-liners:
 * `const body = parseBody(CreateKeyBody, req);`
 */
import type { Request } from 'express';
import type { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import { validationMessages } from '../../kernel/errors/validation-messages.js';
import { isPlainObject } from '../../kernel/shared/is-plain-object.js';

/** The service's wording of validation failures (see `validationMessages`). */
const formatZodIssues = validationMessages;

/** Parses `value` with `schema`; throws a 400 validation AppError listing every issue. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (!result.success) throw AppError.validation(formatZodIssues(result.error));
  return result.data;
}

/**
 * The JSON body of a route whose fields are all optional: no body is no fields, and a body
 * that is not an object (`null`, `5`, `[]`) is 400 `body must be object`, never no fields.
 */
export function objectBody(req: Request): Record<string, unknown> {
  const body: unknown = req.body;
  if (body === undefined) return {};
  if (!isPlainObject(body)) throw AppError.validation(['body must be object']);
  return body;
}

/** Validates the JSON body (undefined when the request had none). */
export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return validate(schema, req.body);
}

/** Validates the query string; values are strings, so numeric fields want `z.coerce`. */
export function parseQuery<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return validate(schema, req.query);
}
