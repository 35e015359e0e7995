/**
 * ERC-8004 onboarding and identity access tokens: the signing key ring, the token
 * service (which the credential resolver consults), the onboarding routes, the JWKS, the
 * ERC-8004 discovery documents, the ops operations of the keys and the tokens' expiry. Built
 * in two steps: the tokens before the accounts module (its credential resolver needs them),
 * the module after it (onboarding makes users and agents).
 */
import { readFileSync } from 'node:fs';
import { Erc8004RegistryAdapter } from '../../adapters/evm/erc8004-registry.adapter.js';
import { RemoteJwksIdentityProviders } from '../../adapters/identity/remote-jwks-provider.adapter.js';
import { chosenAgentId } from '../../machines/agent-id.js';
import { identityTokenDefinition } from '../../machines/identity-token.machine.js';
import type { AgentsService } from '../accounts/agents.service.js';
import { userIdOfWallet, type UsersService } from '../accounts/users.service.js';
import type { WalletLoginService } from '../auth/wallet/wallet-login.service.js';
import { parseIdentityProviders, type IdentitySettings } from '../config/config.schema.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import { createOnboardingRoutes } from '../http/routes/onboarding.routes.js';
import { SIGNING_KEYS_BINDINGS } from '../http/routes/signing-keys.bindings.js';
import { SIGNING_KEY_COLLECTIONS, SigningKeys } from '../identity/keys/signing-keys.service.js';
import { ONBOARDING_COLLECTIONS } from '../identity/onboarding/agent-identity.records.js';
import { Erc8004Ownership } from '../identity/onboarding/erc8004-ownership.service.js';
import { OnboardingService, type OnboardingAgents, type OnboardingCards } from '../identity/onboarding/onboarding.service.js';
import { IdentityTokens } from '../identity/tokens/identity-tokens.service.js';
import { signingKeyOperations } from '../operations/definitions/signing-keys.ops.js';
import type { AnyOperation } from '../operations/operation.types.js';
import type { CollectionSpec } from '../../kernel/ports/store.port.js';
import { createErc8004DiscoveryRoutes } from '../mcp/erc8004-discovery.routes.js';
import { erc8004OwnershipDueOperations, identityTokenDueOperations } from '../operations/definitions/due-job.ops.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

const IDENTITY_COLLECTIONS: CollectionSpec[] = [...SIGNING_KEY_COLLECTIONS, ...ONBOARDING_COLLECTIONS];

/** The ownership sweep: one repeating schedule for the whole service, taken by `erc8004_ownership_check`. */
const OWNERSHIP_SWEEP = {
  scheduleId: 'erc8004-ownership-sweep',
  type: 'erc8004-ownership',
  id: 'sweep',
  event: 'ownership.sweep',
} as const;
/** The sweep reads only the due agents (an index range), so it can run often; each agent is asked every `ownerCheckMs`. */
const OWNERSHIP_SWEEP_EVERY_MS = 60_000;

/** Step one, before the accounts module: the key ring and the token service. */
export function identityTokens(ctx: ModuleContext) {
  const keys = new SigningKeys(ctx.store, new SecretBox(ctx.secrets.DATA_ENCRYPTION_KEY, 'identity-signing-key'), ctx.clock);
  const tokens = new IdentityTokens(
    ctx.runtime.collection(identityTokenDefinition),
    keys,
    ctx.scheduler,
    ctx.clock,
    ctx.bus,
    ctx.config.publicUrl.replace(/\/+$/, ''),
  );
  return { keys, tokens };
}

/** What the module takes from the accounts module (sign-in's EVM check, users, agents, the public rate limit) and the directory's cards. */
export interface IdentityAccounts {
  wallet: Pick<WalletLoginService, 'verifyEvm'>;
  users: Pick<UsersService, 'ensureByWallet'>;
  agents: Pick<AgentsService, 'ensure'>;
  publicLimit: Parameters<typeof createOnboardingRoutes>[0]['publicLimit'];
  /** The directory's card store: onboarding writes an agent's verified identity and registration draft there. */
  cards: OnboardingCards;
}

/** Step two: the module, over the account services. */
export function identityModule(ctx: ModuleContext, parts: ReturnType<typeof identityTokens>, accounts: IdentityAccounts): FeatureModule {
  const settings = ctx.config.identity;
  const { keys, tokens } = parts;
  const registry = new Erc8004RegistryAdapter({
    rpcUrls: settings.registryRpcUrls,
    allowed: settings.registries,
    timeoutMs: settings.jwksTimeoutMs,
    breaker: { ...settings.breaker, logger: ctx.logger },
    clock: ctx.clock,
  });
  const ownership = new Erc8004Ownership({
    registry,
    store: ctx.store,
    clock: ctx.clock,
    tokens,
    cards: accounts.cards,
    publisher: ctx.publisher,
    logger: ctx.logger,
    intervalMs: settings.ownerCheckMs,
  });
  const onboarding = new OnboardingService({
    wallet: accounts.wallet,
    registry,
    ownership,
    providers: new RemoteJwksIdentityProviders({
      providers: providersOf(settings),
      timeoutMs: settings.jwksTimeoutMs,
      cooldownMs: settings.jwksCooldownMs,
      breaker: { ...settings.breaker, logger: ctx.logger },
      clock: ctx.clock,
    }),
    agents: onboardingAgents(accounts.users, accounts.agents),
    tokens,
    cards: accounts.cards,
    store: ctx.store,
    clock: ctx.clock,
  });
  const discovery = createErc8004DiscoveryRoutes({
    publicUrl: ctx.config.publicUrl,
    publicLimit: accounts.publicLimit,
    catalog: ctx.catalog,
    providers: Object.keys(providersOf(settings)),
    registryChainIds: Object.keys(settings.registryRpcUrls).map(Number),
    registries: settings.registries,
  });
  const tokenActors = ctx.runtime.collection(identityTokenDefinition);
  return {
    name: 'identity',
    definitions: [identityTokenDefinition],
    collections: IDENTITY_COLLECTIONS,
    operations: [
      ...(signingKeyOperations(keys, ctx.logger) as AnyOperation[]),
      ...identityTokenDueOperations(tokenActors),
      ...erc8004OwnershipDueOperations(ownership),
    ],
    bindings: SIGNING_KEYS_BINDINGS,
    // Onboarding and the token routes are sign-in's kin (the caller has no credential yet, or proves one by holding it).
    routers: [createOnboardingRoutes({ onboarding, tokens, keys, publicLimit: accounts.publicLimit }), discovery],
    dueJobs: [
      {
        type: identityTokenDefinition.type,
        event: 'token.expire',
        operation: 'identity_token_expire',
        input: (job) => ({ jti: job.address.id, at: job.event.at, dueAt: job.dueAt }),
      },
      {
        type: OWNERSHIP_SWEEP.type,
        event: OWNERSHIP_SWEEP.event,
        operation: 'erc8004_ownership_check',
        input: (job) => ({ dueAt: job.dueAt }),
      },
    ],
    /** After `store.init`: the first key exists, the token cache listens for revocations, ownership is checked on schedule. */
    start: async () => {
      await keys.ensureActive();
      // Rotations of other processes reach this one's key holders (the audit chain's signer) at once.
      await keys.listen(ctx.bus, (error) => ctx.logger.error({ err: error }, 'signing key rotation not told to other processes'));
      await tokens.start();
      // Verified agents stored before the checks are due at once; the sweep does not wait for this pass.
      ownership.scheduleStoredRecords().catch((error: unknown) => ctx.logger.error({ err: error }, 'stored verified agents not scheduled'));
      // The same id from every process and every start: one schedule, updated, never a second.
      await ctx.scheduler.scheduleRepeating({
        scheduleId: OWNERSHIP_SWEEP.scheduleId,
        address: { type: OWNERSHIP_SWEEP.type, id: OWNERSHIP_SWEEP.id },
        event: { type: OWNERSHIP_SWEEP.event },
        everyMs: OWNERSHIP_SWEEP_EVERY_MS,
      });
    },
  };
}

/** IDENTITY_PROVIDERS, or the file IDENTITY_PROVIDERS_FILE names (read once, at start). */
function providersOf(settings: IdentitySettings) {
  if (!settings.providersFile) return settings.providers;
  const parsed = parseIdentityProviders(readFileSync(settings.providersFile, 'utf8'));
  if (typeof parsed === 'string') throw new Error(`IDENTITY_PROVIDERS_FILE: ${parsed}`);
  return parsed;
}

/** The account services as the onboarding sees them: the same identity → the same agent. */
function onboardingAgents(users: IdentityAccounts['users'], agents: IdentityAccounts['agents']): OnboardingAgents {
  return {
    walletOwner: async (address) => (await users.ensureByWallet('evm', address)).id,
    walletOwnerId: (address) => userIdOfWallet('evm', address),
    ensure: async (ownerId, ids, name) => {
      const { view, created } = await agents.ensure(ownerId, ids, name);
      const { claim } = view.context;
      return {
        actorId: view.id,
        agentId: chosenAgentId(view.id),
        publicId: view.context.publicId,
        created,
        ...(claim ? { claimedBy: claim.claimedBy } : {}),
      };
    },
  };
}
