/**
 * JSON body parsing with the size limit of limits, translating the parser's
 * failures into AppErrors here so the error middleware needs no knowledge of body-parser.
 */
import { isUtf8 } from 'node:buffer';
import express, { type Request, type RequestHandler } from 'express';
import { AppError } from '../../kernel/errors/app-error.js';

/** REST bodies over 1 MiB get 413 (limits not shown in the interface). */
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface JsonBodyOptions {
  limitBytes?: number;
  /**
   * Path prefixes that parse their own bodies. MCP answers malformed JSON and oversize
   * bodies in JSON-RPC terms (the MCP and agent errors), so it must see the raw request.
   */
  skipPrefixes?: readonly string[];
}

/** body-parser marks its errors with `type`; map the ones a client causes. */
function translate(err: unknown): unknown {
  const type = (err as { type?: unknown } | null)?.type;
  switch (type) {
    case 'entity.parse.failed':
    case INVALID_UTF8:
      return AppError.validation(['Malformed JSON body']);
    case 'entity.too.large':
      return new AppError('PAYLOAD_TOO_LARGE', 'Payload Too Large', { envelope: 'standard', cause: err });
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return unsupportedMediaType(err);
    case 'request.aborted':
    case 'request.size.invalid':
      return new AppError('VALIDATION_ERROR', 'Bad Request', { envelope: 'standard', cause: err });
    default:
      return err;
  }
}

/** Our own mark on a body whose bytes are not UTF-8 (body-parser would decode them to U+FFFD). */
const INVALID_UTF8 = 'entity.utf8.invalid';

/**
 * JSON text is UTF-8 (RFC 8259 §8.1): other bytes would be stored as replacement
 * characters, something other than what the client sent. `encoding` is the charset
 * body-parser read from Content-Type (utf-8 when none); utf-16 and utf-32 bodies are left
 * to its decoder.
 */
function verifyUtf8(_req: Request, _res: unknown, body: Buffer, encoding: string): void {
  if (encoding === 'utf-8' && !isUtf8(body)) throw Object.assign(new Error('Body is not valid UTF-8'), { type: INVALID_UTF8, status: 400 });
}

function unsupportedMediaType(cause?: unknown): AppError {
  return new AppError('VALIDATION_ERROR', 'Unsupported Media Type', {
    kind: 'unsupported_media',
    envelope: 'standard',
    ...(cause ? { cause } : {}),
  });
}

/** Whether the request carries a body at all (RFC 9112 §6.3: a length above zero, or chunks). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

function isSkipped(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/**
 * Parses `application/json` bodies: any JSON text, so that a body that is valid JSON but not
 * an object (`5`, `null`) is refused by the route's schema as `body must be object`, not as
 * malformed. A body of any other type is refused with 415 rather than read as no body: a
 * route whose fields are all optional (pause one strategy, or all of them) must not do more
 * than was asked.
 */
export function jsonBodyMiddleware(options: JsonBodyOptions = {}): RequestHandler {
  const parse = express.json({ limit: options.limitBytes ?? DEFAULT_BODY_LIMIT_BYTES, verify: verifyUtf8, strict: false });
  const skip = options.skipPrefixes ?? [];
  return (req, res, next) => {
    if (isSkipped(req.path, skip)) {
      next();
      return;
    }
    parse(req, res, (err?: unknown) => {
      if (err !== undefined && err !== null) next(translate(err));
      else if (req.body === undefined && hasBody(req)) next(unsupportedMediaType());
      else next();
    });
  };
}
