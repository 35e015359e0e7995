/**
 * ERC-8004 onboarding and identity tokens (the public onboarding and directory routes and the discovery routes; identity access tokens): public routes, like sign-in outside the catalog (there is no principal yet), each
 * counted against the caller's address. `/.well-known/jwks.json` publishes the public keys.
 */
import { Router, type RequestHandler } from 'express';
import type { OnboardingResult, OnboardingService } from '../../identity/onboarding/onboarding.service.js';
import { revokeSchema, revokeStatusSchema } from '../../identity/onboarding/onboarding.schemas.js';
import type { SigningKeys } from '../../identity/keys/signing-keys.service.js';
import type { IdentityTokens } from '../../identity/tokens/identity-tokens.service.js';
import { objectBody, validate } from '../validate.js';
import { noQuery } from './route-schemas.js';

export const ONBOARDING_PREFIX = '/api/public/erc8004/onboarding';

export interface OnboardingRoutesDeps {
  onboarding: OnboardingService;
  tokens: Pick<IdentityTokens, 'revoke' | 'status'>;
  keys: Pick<SigningKeys, 'jwks'>;
  /** The per-IP budget of public routes. */
  publicLimit: RequestHandler;
}

export function createOnboardingRoutes(deps: OnboardingRoutesDeps): Router {
  const router = Router();
  const perIp = deps.publicLimit;
  // 201 for a new agent, 200 when the identity came back to its agent.
  const answer = (res: Parameters<RequestHandler>[1], result: OnboardingResult) => {
    const { created, ...body } = result;
    res
      .status(created ? 201 : 200)
      .set('Cache-Control', 'no-store')
      .json(body);
  };
  router.post(`${ONBOARDING_PREFIX}/siwe`, perIp, noQuery, async (req, res) => answer(res, await deps.onboarding.siwe(objectBody(req))));
  router.post(`${ONBOARDING_PREFIX}/identity`, perIp, noQuery, async (req, res) =>
    answer(res, await deps.onboarding.identity(objectBody(req))),
  );
  router.post(`${ONBOARDING_PREFIX}/tokens/revoke`, perIp, noQuery, async (req, res) => {
    res.json(await deps.tokens.revoke(validate(revokeSchema, objectBody(req)).token));
  });
  router.post(`${ONBOARDING_PREFIX}/tokens/revoke-status`, perIp, noQuery, async (req, res) => {
    res.set('Cache-Control', 'no-store').json(await deps.tokens.status(validate(revokeStatusSchema, objectBody(req))));
  });
  router.get('/.well-known/jwks.json', perIp, noQuery, async (_req, res) => {
    // Short: a rotation's new key must reach verifiers before tokens signed with it do (RING_CACHE_MS).
    res
      .set({ 'Cache-Control': 'public, max-age=60', 'Access-Control-Allow-Origin': '*' })
      .type('application/jwk-set+json')
      .send(JSON.stringify(await deps.keys.jwks()));
  });
  return router;
}
