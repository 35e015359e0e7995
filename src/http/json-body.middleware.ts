/**
 * JSON body parsing with the size limit of CONTRACT "Limits", translating the parser's
 * failures into AppErrors here so the error middleware needs no knowledge of body-parser.
 */
import express, { type RequestHandler } from 'express';
import { AppError } from '../errors/app-error.js';

/** REST bodies over 1 MiB get 413 (CONTRACT, "Limits not shown in the interface"). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface JsonBodyOptions {
  limitBytes?: number;
  /**
   * Path prefixes that parse their own bodies. MCP answers malformed JSON and oversize
   * bodies in JSON-RPC terms (interface 7.5), so it must see the raw request.
   */
  skipPrefixes?: readonly string[];
}

/** body-parser marks its errors with `type`; map the ones a client causes. */
function translate(err: unknown): unknown {
  const type = (err as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
      return AppError.validation(['Malformed JSON body']);
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'Payload Too Large', { envelope: 'standard', cause: err });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new AppError('VALIDATION_ERROR', 'Unsupported Media Type', { status: 415, envelope: 'standard', cause: err });
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('VALIDATION_ERROR', 'Bad Request', { envelope: 'standard', cause: err });
    default:
      return err;
  }
}

function isSkipped(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** Parses `application/json` bodies (strict: top level must be an object or array). */
export function jsonBodyMiddleware(options: JsonBodyOptions = {}): RequestHandler {
  const parse = express.json({ limit: options.limitBytes ?? DEFAULT_BODY_LIMIT_BYTES });
  const skip = options.skipPrefixes ?? [];
  return (req, res, next) => {
    if (isSkipped(req.path, skip)) {
      next();
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err === undefined || err === null) next();
      else next(translate(err));
    });
  };
}
