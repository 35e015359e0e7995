/**
 * What an identity access token is to the code that only has to recognise one (the
 * credential resolver): its principal type, and its shape. Kept apart from the token service
 * so that recognising a token pulls in no signing or storage code.
 */
import { decodeProtectedHeader } from 'jose';
import type { KeyScope } from '../../../kernel/vocabulary/scopes.js';

/** Who calls with an identity token: the agent it was issued for, with the token's scope. */
export interface IdentityTokenPrincipal {
  type: 'identity-token';
  jti: string;
  scope: KeyScope;
  /** Actor id of the agent. */
  ownerId: string;
  publicId: string;
  /** Epoch ms (`exp`). */
  expiresAt: number;
}

/**
 * True for a compact JWS whose header says ES256 with a `kid`: an identity token (session
 * tokens are HS256). A forged header only routes the token to the identity-token check,
 * which refuses it: it decides nothing else.
 */
export function isIdentityToken(token: string): boolean {
  // The shape first (a regex), so a session token or junk costs no header decoding.
  if (!looksLikeJwt(token)) return false;
  try {
    const header = decodeProtectedHeader(token);
    return header.alg === 'ES256' && typeof header.kid === 'string';
  } catch {
    return false;
  }
}

/** Any three base64url parts (the signature may be empty), of a bounded size: a bearer its sender meant as a JWT. */
const ANY_JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** True for a bearer that is a JWT by its shape alone, verified or not (`eyJ.bad.token`). */
export function hasJwtShape(token: string): boolean {
  return token.length <= 8192 && ANY_JWT_SHAPE.test(token);
}

/** Three base64url parts of bounded length: a compact JWS, before any decoding. */
const JWT_SHAPE = /^[A-Za-z0-9_-]{10,2048}\.[A-Za-z0-9_-]{10,4096}\.[A-Za-z0-9_-]{10,512}$/;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}
