/**
 * The sign-in, session, CSRF and TOTP routes of `auth.routes.ts` (the auth routes, sessions), described with the schemas those routes and the wallet login validate with.
 */
import { z } from 'zod';
import { EVM_CHAIN_ID_LIST } from '../../../kernel/vocabulary/chains.js';
import {
  EvmLoginRequestSchema,
  EvmNonceRequestSchema,
  SolanaLoginRequestSchema,
  SolanaNonceRequestSchema,
} from '../../auth/wallet/wallet-login.schemas.js';
import { codeBodySchema } from '../routes/route-schemas.js';
import {
  csrfResponseSchema,
  evmNonceResponseSchema,
  loginResultSchema,
  solanaNonceResponseSchema,
  successSchema,
  totpEnrollSchema,
  verifyResponseSchema,
} from './response-schemas.js';
import { refreshBodySchema } from '../routes/auth.routes.js';
import type { RouteDoc } from './route-doc.types.js';

const TAG = 'Auth';

/** Route descriptions of `createAuthRoutes`. */
export const AUTH_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/api/nest/auth/csrf',
    tag: TAG,
    summary: 'Get a CSRF token',
    description:
      'Without a credential the token is bound to the HttpOnly `csrf_pre` cookie this route sets (use it for login). With a session bearer it is bound to the session.',
    auth: [],
    response: csrfResponseSchema,
    errors: [401, 403],
  },
  {
    method: 'post',
    path: '/api/nest/auth/nonce',
    tag: TAG,
    summary: 'Get a Solana SIWS nonce and the message to sign',
    auth: [],
    body: SolanaNonceRequestSchema,
    response: solanaNonceResponseSchema,
  },
  {
    method: 'post',
    path: '/api/nest/auth/login',
    tag: TAG,
    summary: 'Solana SIWS login',
    description:
      'Nonces are single use and expire after 5 minutes; the address must match the signer. ' +
      'The refresh token is also set as the `refresh_token` cookie (HttpOnly, SameSite=Strict, Path=/api/nest/auth/refresh).',
    auth: ['pre-login-csrf'],
    body: SolanaLoginRequestSchema,
    response: loginResultSchema,
  },
  {
    method: 'post',
    path: '/api/nest/auth/evm/nonce',
    tag: TAG,
    summary: 'Get an EVM SIWE nonce',
    description:
      `The client builds the EIP-4361 message with it (domain = the service host, URI on PUBLIC_URL, Chain ID ${EVM_CHAIN_ID_LIST}, ` +
      'Issued At not before the nonce). The body is optional; with `walletAddress` the nonce is bound to that wallet.',
    auth: [],
    body: EvmNonceRequestSchema,
    response: evmNonceResponseSchema,
  },
  {
    method: 'post',
    path: '/api/nest/auth/evm/login',
    tag: TAG,
    summary: 'EVM SIWE login (EIP-4361)',
    description: 'The refresh token is also set as the `refresh_token` cookie, as for the Solana login.',
    auth: ['pre-login-csrf'],
    body: EvmLoginRequestSchema,
    response: loginResultSchema,
  },
  {
    method: 'post',
    path: '/api/nest/auth/refresh',
    tag: TAG,
    summary: 'Rotate the refresh token and get a new access token',
    description:
      'A refresh token used twice revokes its whole family. The token comes from the body, the bearer, or else the ' +
      '`refresh_token` cookie; a cookie-borne refresh also needs the pre-login CSRF token (`X-CSRF-Token` with the `csrf_pre` cookie). ' +
      'The new refresh token replaces the cookie; a refused cookie is cleared.',
    auth: ['refresh-token', 'refresh-cookie'],
    body: refreshBodySchema,
    bodyRequired: false,
    response: loginResultSchema,
  },
  {
    method: 'post',
    path: '/api/nest/auth/logout',
    tag: TAG,
    summary: 'Invalidate the session',
    description: 'Revokes the refresh-token family and clears the `refresh_token` cookie (Max-Age=0).',
    auth: ['session'],
    response: successSchema,
  },
  {
    method: 'post',
    path: '/api/nest/auth/verify',
    tag: TAG,
    summary: 'Check a credential',
    description: 'Read-only, so no CSRF token. Never returns a secret or hash.',
    auth: ['session-no-csrf', 'api-key'],
    response: verifyResponseSchema,
  },
  {
    method: 'post',
    path: '/api/nest/auth/totp/enroll',
    tag: TAG,
    summary: 'Enroll a TOTP authenticator',
    description: 'RFC 6238, SHA-1, 30 s. The secret is shown once.',
    auth: ['session'],
    response: totpEnrollSchema,
    errors: [409],
  },
  {
    method: 'post',
    path: '/api/nest/auth/totp/activate',
    tag: TAG,
    summary: 'Activate TOTP with a first code',
    auth: ['session'],
    body: codeBodySchema,
    response: z.object({ active: z.literal(true) }),
  },
];
