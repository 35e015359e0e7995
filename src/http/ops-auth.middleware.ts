/**
 * Bearer-token guard of the ops inspection routes. The token is compared in constant time
 * so response timing reveals nothing about how much of a guess was right.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { AppError } from '../../kernel/errors/app-error.js';

/** `Bearer <token>`; the scheme is case-insensitive (RFC 7235). */
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of an `Authorization: Bearer` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : BEARER.exec(header)?.[1];
}

/**
 * Equal-time comparison of two secrets. Both are hashed first: `timingSafeEqual` needs
 * equal lengths, and comparing lengths directly would leak the expected length.
 */
export function secretsEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** 401 `Unauthorized` (standard envelope) unless the request carries the expected bearer token. */
export function requireBearerToken(expected: string): RequestHandler {
  return (req, _res, next) => {
    const token = bearerToken(req.get('Authorization'));
    // An empty configured token must not let an empty (or any) token in.
    if (expected === '' || token === undefined || !secretsEqual(token, expected)) {
      next(AppError.unauthorized());
      return;
    }
    next();
  };
}
