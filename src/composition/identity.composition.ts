/**
 * ERC-8004 onboarding and identity access tokens (issue 18): the signing key ring, the token
 * service (which the credential resolver consults), the onboarding routes, the JWKS and the
 * ops operations of the keys. Built in two steps: the tokens before the accounts (the
 * credential resolver needs them), the routes after (onboarding makes agents).
 */
import { readFileSync } from 'node:fs';
import type { Router } from 'express';
import type { Logger } from 'pino';
import { Erc8004RegistryAdapter } from '../../adapters/evm/erc8004-registry.adapter.js';
import { RemoteJwksIdentityProviders } from '../../adapters/identity/remote-jwks-provider.adapter.js';
import { identityTokenDefinition } from '../../machines/identity-token.machine.js';
import type { AgentsService } from '../accounts/agents.service.js';
import type { UsersService } from '../accounts/users.service.js';
import type { WalletLoginService } from '../auth/wallet/wallet-login.service.js';
import { parseIdentityProviders, type IdentitySettings } from '../config/config.schema.js';
import type { Secrets } from '../config/secrets.js';
import { SecretBox } from '../crypto/secret-box.js';
import { AppError, isAppError } from '../errors/app-error.js';
import { createOnboardingRoutes } from '../http/routes/onboarding.routes.js';
import type { RestBinding } from '../http/routes/operation.routes.js';
import { SIGNING_KEY_COLLECTIONS, SigningKeys } from '../identity/keys/signing-keys.service.js';
import { ONBOARDING_COLLECTIONS, OnboardingService, type OnboardingAgents } from '../identity/onboarding/onboarding.service.js';
import { IdentityTokens } from '../identity/tokens/identity-tokens.service.js';
import { signingKeyOperations } from '../operations/definitions/signing-keys.ops.js';
import type { AnyOperation } from '../operations/operation.types.js';
import type { ClockPort } from '../ports/clock.port.js';
import type { EventBusPort } from '../ports/event-bus.port.js';
import type { SchedulerPort } from '../ports/scheduler.port.js';
import type { CollectionSpec, StorePort } from '../ports/store.port.js';
import type { ActorRuntime } from '../runtime/actor-runtime.js';

export const IDENTITY_COLLECTIONS: CollectionSpec[] = [...SIGNING_KEY_COLLECTIONS, ...ONBOARDING_COLLECTIONS];

/** Signing keys of identity tokens, under the ops prefix whose router answers strangers first. */
export const SIGNING_KEYS_PATH = '/api/nest/ops/identity/signing-keys';
export const SIGNING_KEY_BINDINGS: RestBinding[] = [
  { method: 'get', path: SIGNING_KEYS_PATH, operation: 'ops_signing_keys_get', subject: 'none', caller: 'ops', tag: 'Ops' },
  { method: 'post', path: `${SIGNING_KEYS_PATH}/rotate`, operation: 'ops_signing_keys_rotate', subject: 'none', caller: 'ops', tag: 'Ops' },
];

export interface IdentityTokensDeps {
  runtime: ActorRuntime;
  store: StorePort;
  scheduler: SchedulerPort;
  bus: EventBusPort;
  clock: ClockPort;
  secrets: Secrets;
  publicUrl: string;
  logger: Logger;
}

/** Step one: keys and tokens (the `identity-token` machine is registered with the service's definitions). */
export function buildIdentityTokens(deps: IdentityTokensDeps) {
  const keys = new SigningKeys(deps.store, new SecretBox(deps.secrets.DATA_ENCRYPTION_KEY, 'identity-signing-key'), deps.clock);
  const tokens = new IdentityTokens(runtimeTokens(deps.runtime), keys, deps.scheduler, deps.clock, deps.bus, deps.publicUrl.replace(/\/+$/, ''));
  return {
    keys,
    tokens,
    collections: IDENTITY_COLLECTIONS,
    operations: signingKeyOperations(keys, deps.logger) as AnyOperation[],
    bindings: SIGNING_KEY_BINDINGS,
    /** What the ERC-8004 discovery documents say about onboarding (providers, registry chains). */
    discovery: (settings: IdentitySettings) => ({
      providers: Object.keys(providersOf(settings)),
      registryChainIds: Object.keys(settings.registryRpcUrls).map(Number),
      registries: settings.registries,
    }),
    /** After `store.init`: the first key exists, and the token cache listens for revocations. */
    start: async () => {
      await keys.ensureActive();
      await tokens.start();
    },
  };
}

export type IdentityTokensModule = ReturnType<typeof buildIdentityTokens>;

export interface IdentityRoutesDeps {
  module: IdentityTokensModule;
  settings: IdentitySettings;
  store: StorePort;
  clock: ClockPort;
  wallet: Pick<WalletLoginService, 'verifyEvm'>;
  users: Pick<UsersService, 'ensureByWallet'>;
  agents: Pick<AgentsService, 'create' | 'ownedView'>;
  publicLimit: Parameters<typeof createOnboardingRoutes>[0]['publicLimit'];
}

/** Step two: the onboarding routes and the JWKS, over the account services. */
export function buildIdentityRoutes(deps: IdentityRoutesDeps): Router[] {
  const { settings } = deps;
  const onboarding = new OnboardingService({
    wallet: deps.wallet,
    registry: new Erc8004RegistryAdapter({ rpcUrls: settings.registryRpcUrls, allowed: settings.registries, timeoutMs: settings.jwksTimeoutMs, breaker: settings.breaker, clock: deps.clock }),
    providers: new RemoteJwksIdentityProviders({
      providers: providersOf(settings),
      timeoutMs: settings.jwksTimeoutMs,
      cooldownMs: settings.jwksCooldownMs,
      breaker: settings.breaker,
      clock: deps.clock,
    }),
    agents: onboardingAgents(deps.users, deps.agents),
    tokens: deps.module.tokens,
    store: deps.store,
    clock: deps.clock,
  });
  return [createOnboardingRoutes({ onboarding, tokens: deps.module.tokens, keys: deps.module.keys, publicLimit: deps.publicLimit })];
}

function runtimeTokens(runtime: ActorRuntime) {
  return runtime.collection(identityTokenDefinition);
}

/** IDENTITY_PROVIDERS, or the file IDENTITY_PROVIDERS_FILE names (read once, at start). */
function providersOf(settings: IdentitySettings) {
  if (!settings.providersFile) return settings.providers;
  const parsed = parseIdentityProviders(readFileSync(settings.providersFile, 'utf8'));
  if (typeof parsed === 'string') throw new Error(`IDENTITY_PROVIDERS_FILE: ${parsed}`);
  return parsed;
}

/** The account services as the onboarding sees them: same owner and agentId → the same agent. */
function onboardingAgents(users: IdentityRoutesDeps['users'], agents: IdentityRoutesDeps['agents']): OnboardingAgents {
  return {
    walletOwner: async (address) => (await users.ensureByWallet('evm', address)).id,
    ensure: async (ownerId, agentId, name) => {
      try {
        const created = await agents.create(ownerId, { name, agentId });
        const view = await agents.ownedView(ownerId, agentId);
        return { actorId: view.id, agentId: created.agentId, publicId: created.publicId, created: true };
      } catch (error) {
        // Onboarding again (or two onboardings at once): the agent is there; answer with it.
        if (!(isAppError(error) && error.code === 'RESOURCE_CONFLICT' && error.message === 'Agent already exists')) throw error;
        const view = await agents.ownedView(ownerId, agentId).catch(() => {
          throw AppError.internal('onboarded agent vanished');
        });
        return { actorId: view.id, agentId, publicId: view.context.publicId, created: false };
      }
    },
  };
}
