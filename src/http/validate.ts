/**
 * zod validation that fails with `AppError.validation`, so route handlers stay one-liners:
 * `const body = parseBody(CreateKeyBody, req);`
 */
import type { Request } from 'express';
import { z } from 'zod';
import { AppError } from '../errors/app-error.js';

/** zod 4 says "Invalid input: expected string, received undefined" for a missing field; callers expect "Required". */
const errorMap: z.core.$ZodErrorMap = (issue) =>
  issue.code === 'invalid_type' && issue.input === undefined ? 'Required' : undefined;

/** `<path>: <message>` per issue (`name: Required`, `items.0.amount: Too small: ...`). */
export function formatZodIssues(error: z.core.$ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    return path === '' ? issue.message : `${path}: ${issue.message}`;
  });
}

/** Parses `value` with `schema`; throws a 400 validation AppError listing every issue. */
export function validate<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value, { error: errorMap });
  if (!result.success) throw AppError.validation(formatZodIssues(result.error));
  return result.data;
}

/** Validates the JSON body (undefined when the request had none). */
export function parseBody<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return validate(schema, req.body);
}

/** Validates the query string; values are strings, so numeric fields want `z.coerce`. */
export function parseQuery<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return validate(schema, req.query);
}

/** Validates path parameters. */
export function parseParams<S extends z.ZodType>(schema: S, req: Request): z.output<S> {
  return validate(schema, req.params);
}

/** True for zod errors of any zod 4 flavour (classic or core). */
export function isZodError(value: unknown): value is z.core.$ZodError {
  return value instanceof z.core.$ZodError;
}
