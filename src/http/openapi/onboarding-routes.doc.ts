/**
 * The ERC-8004 onboarding, identity-token and JWKS routes of `onboarding.routes.ts`
 * (the public onboarding and directory routes and the discovery routes; identity access tokens), with the schemas they validate with.
 */
import { z } from 'zod';
import {
  identityOnboardingSchema,
  revokeSchema,
  revokeStatusSchema,
  siweOnboardingSchema,
} from '../../identity/onboarding/onboarding.schemas.js';
import { ONBOARDING_PREFIX } from '../routes/onboarding.routes.js';
import type { RouteDoc } from './route-doc.types.js';

const TAG = 'ERC-8004';

const issuedSchema = z.object({
  agentId: z.string(),
  publicId: z.string(),
  accessToken: z.string().describe('ES256 JWT; verify it with /.well-known/jwks.json'),
  tokenType: z.literal('Bearer'),
  expiresIn: z.number().describe('Seconds: read 3600, trade 300'),
  scope: z.enum(['read', 'trade']),
  jti: z.string(),
  verified: z.boolean().describe('True when the ERC-8004 identity was checked on chain (SIWA)'),
});
const statusSchema = z.object({ jti: z.string(), revoked: z.boolean(), revokedAt: z.string().optional() });
const jwksSchema = z.object({
  keys: z.array(
    z.object({ kty: z.string(), crv: z.string(), x: z.string(), y: z.string(), kid: z.string(), alg: z.string(), use: z.string() }),
  ),
});

export const ONBOARDING_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'post',
    path: `${ONBOARDING_PREFIX}/siwe`,
    tag: TAG,
    summary: 'Onboard with a wallet signature (EIP-4361, or SIWA for an ERC-8004 identity)',
    description:
      'Nonce from POST /api/nest/auth/evm/nonce. The SIWA form adds `Agent ID:` and `Agent Registry: eip155:<chainId>:<address>`: the service asks `ownerOf(agentId)` on that registry. 201 for a new agent, 200 when the same wallet (and identity) comes back. `manage` → 403 `Requested scope not available`.',
    auth: [],
    body: siweOnboardingSchema,
    status: 200,
    createdStatus: 201,
    response: issuedSchema,
    errors: [401, 403, 503],
  },
  {
    method: 'post',
    path: `${ONBOARDING_PREFIX}/identity`,
    tag: TAG,
    summary: "Onboard with a configured identity provider's token",
    description: 'Unknown provider → 401 `Unknown identity provider: <provider>`; its `iss` + `sub` identify the agent.',
    auth: [],
    body: identityOnboardingSchema,
    status: 200,
    createdStatus: 201,
    response: issuedSchema,
    errors: [401, 403, 503],
  },
  {
    method: 'post',
    path: `${ONBOARDING_PREFIX}/tokens/revoke`,
    tag: TAG,
    summary: 'Revoke an identity access token',
    description: 'Every process refuses it within a second (401 `Token has been revoked`); a second revoke → 400 `Token already revoked`.',
    auth: [],
    body: revokeSchema,
    response: statusSchema,
    errors: [401],
  },
  {
    method: 'post',
    path: `${ONBOARDING_PREFIX}/tokens/revoke-status`,
    tag: TAG,
    summary: 'Revocation status of a token, by `jti` or by the token',
    auth: [],
    body: revokeStatusSchema,
    response: statusSchema,
    errors: [401, 404],
  },
  {
    method: 'get',
    path: '/.well-known/jwks.json',
    tag: TAG,
    summary: 'ES256 public keys of identity tokens (active and retired ones still needed)',
    auth: [],
    response: jwksSchema,
    contentType: 'application/jwk-set+json',
  },
  {
    method: 'get',
    path: '/.well-known/erc8004-discovery.json',
    tag: TAG,
    summary: 'ERC-8004 discovery: registries, chains, onboarding and token endpoints, jwks_uri, MCP endpoint',
    auth: [],
    response: z.object({}).loose(),
  },
  {
    method: 'get',
    path: '/.well-known/erc8004-onboarding.json',
    tag: TAG,
    summary: 'Onboarding metadata (version erc8004-onboarding-v2): steps, scopes and lifetimes, providers, errors',
    auth: [],
    response: z.object({ version: z.literal('erc8004-onboarding-v2') }).loose(),
  },
  {
    method: 'get',
    path: '/.well-known/erc8004-onboarding.md',
    tag: TAG,
    summary: 'The onboarding metadata for people',
    auth: [],
    contentType: 'text/markdown',
  },
  {
    method: 'get',
    path: '/.well-known/erc8004-skills-manifest.json',
    tag: TAG,
    summary: 'Tools an agent credential may be offered, from the catalog at request time (no fixed count)',
    auth: [],
    response: z.object({}).loose(),
  },
];
