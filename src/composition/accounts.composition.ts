import type { Router } from 'express';
import { createPublicClient, http } from 'viem';
import { AgentsService } from '../accounts/agents.service.js';
import { ApiKeysService } from '../accounts/api-keys.service.js';
import { BotsService } from '../accounts/bots.service.js';
import { CAP_LOCKS_COLLECTION, OwnerCaps } from '../accounts/owner-caps.js';
import type { AccountLimits } from '../config/config.schema.js';
import { USER_COLLECTIONS, UsersService } from '../accounts/users.service.js';
import { CredentialResolver, type IdentityTokenAuthenticator } from '../auth/credentials/credential-resolver.js';
import { KeyAuthenticator } from '../auth/credentials/key-authenticator.js';
import { CsrfTokens } from '../auth/csrf/csrf-tokens.js';
import { SessionService } from '../auth/session/session.service.js';
import { SessionTokens } from '../auth/session/session-tokens.js';
import { STEP_UP_COLLECTIONS, StepUpService } from '../auth/step-up/step-up.service.js';
import { TOTP_COLLECTIONS, TotpService } from '../auth/totp/totp.service.js';
import { NONCE_COLLECTIONS, NonceService } from '../auth/wallet/nonce.service.js';
import { WalletLoginService } from '../auth/wallet/wallet-login.service.js';
import type { Secrets } from '../config/secrets.js';
import { SecretBox } from '../crypto/secret-box.js';
import type { AuthMiddlewareDeps } from '../http/auth/auth.middleware.js';
import { createAuthRoutes } from '../http/routes/auth.routes.js';
import type { ClockPort } from '../ports/clock.port.js';
import type { EventBusPort } from '../ports/event-bus.port.js';
import { perMinute, type RateLimiterPort } from '../ports/rate-limiter.port.js';
import { publicRateLimit } from '../http/rate-limit.middleware.js';
import type { SchedulerPort } from '../ports/scheduler.port.js';
import type { CollectionSpec, StorePort } from '../ports/store.port.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import { apiKeyDefinition } from '../../machines/api-key.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import { sessionDefinition } from '../../machines/session.machine.js';

export interface AccountsDeps {
  runtime: ActorRuntime;
  store: StorePort;
  scheduler: SchedulerPort;
  bus: EventBusPort;
  limiter: RateLimiterPort;
  clock: ClockPort;
  secrets: Secrets;
  /** Origin of the service; its host is the sign-in message domain. */
  publicUrl: string;
  /** Requests a minute per client address on public routes (sign-in, OpenAPI, discovery). */
  publicRatePerMinute: number;
  /** Enables ERC-1271 contract-wallet sign-in. */
  evmRpcUrl?: string;
  /** Per-user caps (agents, bots, active keys of one agent or bot). */
  limits: Pick<AccountLimits, 'agentsPerUser' | 'botsPerUser' | 'activeKeysPerAgent'>;
  /** Identity access tokens the credential resolver accepts (identity.composition.ts). */
  identityTokens?: IdentityTokenAuthenticator;
}

/** Store collections of the account services (actors declare theirs through the runtime). */
export const ACCOUNT_COLLECTIONS: CollectionSpec[] = [...USER_COLLECTIONS, ...NONCE_COLLECTIONS, ...TOTP_COLLECTIONS, ...STEP_UP_COLLECTIONS, CAP_LOCKS_COLLECTION];

/** Operators, sessions, agents, bots, keys, TOTP and step-up: services, and the sign-in routes. */
export function buildAccounts(deps: AccountsDeps) {
  const { runtime, store, clock, bus } = deps;
  const box = (purpose: string) => new SecretBox(deps.secrets.DATA_ENCRYPTION_KEY, purpose);
  const domain = new URL(deps.publicUrl).host;

  const users = new UsersService(store, clock);
  const sessions = new SessionService(runtime.collection(sessionDefinition), new SessionTokens(deps.secrets.SESSION_SECRET, deps.publicUrl, clock), clock, bus);
  const totp = new TotpService({ store, clock, box: box('totp-secret'), issuer: domain });
  const stepUp = new StepUpService({ store, clock, box: box('step-up-token'), totp });
  const caps = new OwnerCaps(store, clock);
  // One box for issuing and checking keys: both hash secrets under the `api-key` purpose.
  const keyBox = box('api-key');
  const keys = new ApiKeysService(runtime.collection(apiKeyDefinition), deps.scheduler, keyBox, stepUp, clock, caps, deps.limits.activeKeysPerAgent);
  const keyAuthenticator = new KeyAuthenticator(runtime.collection(apiKeyDefinition), runtime.collection(botDefinition), keyBox, clock, bus);
  const resolver = new CredentialResolver(sessions, keyAuthenticator, deps.identityTokens);
  const csrf = new CsrfTokens(deps.secrets.SESSION_SECRET);
  const wallet = new WalletLoginService({
    nonces: new NonceService({ store, clock }),
    clock,
    publicUrl: deps.publicUrl,
    ...(deps.evmRpcUrl ? { evmPublicClient: createPublicClient({ transport: http(deps.evmRpcUrl, { timeout: 5_000 }) }) } : {}),
  });
  const agents = new AgentsService(runtime.collection(agentDefinition), users, clock, caps, deps.limits.agentsPerUser);
  const bots = new BotsService(runtime.collection(botDefinition), clock, keys, caps, deps.limits.botsPerUser);
  const auth: AuthMiddlewareDeps = { resolver, csrf, limiter: deps.limiter, publicLimit: publicRateLimit(deps.limiter, [perMinute(deps.publicRatePerMinute)]) };

  // Sign-in only: every other account capability is a catalog operation (operations.composition.ts).
  const routers: Router[] = [createAuthRoutes({ auth, resolver, csrf, wallet, users, sessions, totp })];
  return {
    routers,
    auth,
    services: { users, sessions, keys, keyAuthenticator, resolver, agents, bots, totp, stepUp, wallet },
    /** Subscribes the credential caches to revocations on the bus. */
    start: async () => {
      await sessions.start();
      await keyAuthenticator.start();
    },
  };
}
