/**
 * What an identity access token is to the code that only has to recognise one (the
 * credential resolver): its principal type, and its shape. Kept apart from the token service
 * so that recognising a token pulls in no signing or storage code.
 */
import { decodeProtectedHeader } from 'jose';
import type { KeyScope } from '../../../machines/api-key.machine.js';

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
  if (token.split('.').length !== 3) return false;
  try {
    const header = decodeProtectedHeader(token);
    return header.alg === 'ES256' && typeof header.kid === 'string';
  } catch {
    return false;
  }
}
