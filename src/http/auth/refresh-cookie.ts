/**
 * The refresh token as a browser keeps it: an HttpOnly, SameSite=Strict cookie sent only to
 * the refresh route, so the console resumes its session after a reload or in a new tab
 * without the token ever being readable by the page's scripts.
 */
import type { Request, Response } from 'express';
import { z } from 'zod';
import { REFRESH_TOKEN_TTL_SECONDS } from '../../auth/session/session-tokens.js';

export const REFRESH_COOKIE = 'refresh_token';
export const REFRESH_PATH = '/api/nest/auth/refresh';

/** The refresh cookie's value: a JWT's characters, within the body field's bound. */
export const refreshCookieSchema = z
  .string()
  .min(1)
  .max(4096)
  .regex(/^[A-Za-z0-9._-]+$/);

/** Cookie attributes of the service; `Secure` when PUBLIC_URL is https or the request came over TLS. */
export interface CookiePolicy {
  /** PUBLIC_URL is https: browsers reach the service over TLS even when a proxy ends it. */
  secure: boolean;
}

/** `; Secure` when the browser reaches the service over TLS: one rule for every cookie the service sets. */
export const secureAttribute = (policy: CookiePolicy, req: Request): string => (policy.secure || req.secure ? '; Secure' : '');

/** Sets (or replaces) the refresh cookie with the token just issued. */
export function setRefreshCookie(res: Response, req: Request, policy: CookiePolicy, token: string): void {
  res.append(
    'Set-Cookie',
    `${REFRESH_COOKIE}=${token}; Path=${REFRESH_PATH}; HttpOnly; SameSite=Strict; Max-Age=${REFRESH_TOKEN_TTL_SECONDS}${secureAttribute(policy, req)}`,
  );
}

/** Removes the refresh cookie (logout, or a cookie the service refused). */
export function clearRefreshCookie(res: Response, req: Request, policy: CookiePolicy): void {
  res.append('Set-Cookie', `${REFRESH_COOKIE}=; Path=${REFRESH_PATH}; HttpOnly; SameSite=Strict; Max-Age=0${secureAttribute(policy, req)}`);
}

/** One cookie of the request's `Cookie` header. */
export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.get('cookie') ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}
