/**
 * ERC-8004 onboarding (interface 4.3, CONTRACT "Identity access tokens"): an external agent
 * proves who it is — its owner wallet's EIP-4361 signature, the SIWA form of it for an
 * ERC-8004 identity checked on chain, or a configured identity provider's token — and gets
 * an agent (the same one each time it comes back with the same proof) and an identity token.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { KeyScope } from '../../../machines/api-key.machine.js';
import { requirePurpose } from '../../auth/wallet/message-purpose.js';
import { WALLET_AUTH_MESSAGES, walletAuthError } from '../../auth/wallet/wallet-auth.errors.js';
import { parseWalletInput } from '../../auth/wallet/wallet-login.schemas.js';
import type { WalletLoginService } from '../../auth/wallet/wallet-login.service.js';
import type { AgentRegistryPort } from '../../ports/agent-registry.port.js';
import type { ClockPort } from '../../ports/clock.port.js';
import type { IdentityProviderPort } from '../../ports/identity-provider.port.js';
import type { CollectionSpec, StorePort } from '../../ports/store.port.js';
import { updateRecord } from '../../shared/record-update.js';
import { scopeNotAvailable, unknownProvider } from '../tokens/identity-token.errors.js';
import type { IdentityTokens, IssuedToken } from '../tokens/identity-tokens.service.js';
import { identityOnboardingSchema, siweOnboardingSchema, type Registration } from './onboarding.schemas.js';
import { splitSiwaMessage, type SiwaIdentity } from './siwa-message.js';

export const AGENT_IDENTITIES = 'agent_identities';
export const ONBOARDING_COLLECTIONS: CollectionSpec[] = [{ name: AGENT_IDENTITIES, indexes: [] }];

/** How the onboarding finds or makes the agent of an identity; the composition backs it with the account services. */
export interface OnboardingAgents {
  /** The owner of agents onboarded by an EVM wallet (the wallet's user, made on first use). */
  walletOwner(address: string): Promise<string>;
  /** The owner's agent `agentId`, created (and activated) when absent. */
  ensure(ownerId: string, agentId: string, name: string): Promise<{ actorId: string; agentId: string; publicId: string; created: boolean }>;
}

/**
 * Where an onboarded agent's card learns its verified identity and the registration file it
 * sent, which becomes the card's draft (the directory's card store; the composition wires it).
 */
export interface OnboardingCards {
  onboarded(
    agentActorId: string,
    card: { verified: boolean; registrations?: Array<{ agentId: string; agentRegistry: string }>; registration?: Registration },
  ): Promise<void>;
}

/** What the service keeps about how an agent was onboarded. */
export interface AgentIdentityRecord {
  method: 'siwe' | 'siwa' | 'provider';
  verified: boolean;
  wallet?: string;
  erc8004?: { agentId: string; registry: string };
  provider?: { name: string; issuer: string; subject: string };
  /**
   * Records from before agent cards held the registration file here; the directory module
   * moves it to the agent's card once (card-drafts.migration.ts) and removes it.
   */
  cardDraft?: Registration;
  updatedAt: number;
}

export type OnboardingResult = IssuedToken & { agentId: string; publicId: string; verified: boolean; created: boolean };

export interface OnboardingDeps {
  wallet: Pick<WalletLoginService, 'verifyEvm'>;
  registry: AgentRegistryPort;
  providers: IdentityProviderPort;
  agents: OnboardingAgents;
  tokens: Pick<IdentityTokens, 'issue'>;
  cards: OnboardingCards;
  store: StorePort;
  clock: ClockPort;
}

const MAX_CHOSEN_ID = 128;

export class OnboardingService {
  constructor(private readonly deps: OnboardingDeps) {}

  /** `POST /api/public/erc8004/onboarding/siwe`. */
  async siwe(body: unknown): Promise<OnboardingResult> {
    const input = parseWalletInput(siweOnboardingSchema, body);
    const scope = onboardingScope(input.scope);
    requirePurpose(input.message, 'onboarding');
    const { eip4361, siwa } = splitSiwaMessage(input.message);
    if (siwa && !this.deps.registry.serves(siwa.registry)) throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'registry not served');
    const verified = await this.deps.wallet.verifyEvm({
      message: eip4361,
      signature: input.signature,
      ...(siwa
        ? {
            signedMessage: input.message,
            extraChainIds: [siwa.registry.chainId],
            beforeConsume: (signer) => this.checkOwner(siwa, signer.address),
          }
        : {}),
    });
    const ownerId = await this.deps.agents.walletOwner(verified.address);
    const chosen = siwa ? siwaAgentId(siwa) : 'erc8004-wallet';
    const name = input.registration?.name ?? (siwa ? `ERC-8004 agent ${siwa.agentId}` : 'Onboarded agent');
    const agent = await this.deps.agents.ensure(ownerId, chosen, name);
    await this.record(
      agent.actorId,
      {
        method: siwa ? 'siwa' : 'siwe',
        verified: siwa !== undefined,
        wallet: verified.address,
        ...(siwa
          ? { erc8004: { agentId: siwa.agentId.toString(), registry: `eip155:${siwa.registry.chainId}:${siwa.registry.address}` } }
          : {}),
      },
      input.registration,
    );
    return this.issue(agent, scope, siwa ? 'siwa' : 'siwe', siwa !== undefined);
  }

  /** `POST /api/public/erc8004/onboarding/identity`. */
  async identity(body: unknown): Promise<OnboardingResult> {
    const input = parseWalletInput(identityOnboardingSchema, body);
    const scope = onboardingScope(input.scope);
    if (!this.deps.providers.names().includes(input.provider)) throw unknownProvider(input.provider);
    const identity = await this.deps.providers.verify(input.provider, input.providerToken);
    // The provider's iss + sub are the identity: its agents belong to an owner derived from them.
    const ownerId = `idp_${createHash('sha256').update(`${identity.issuer}\n${identity.subject}`).digest('base64url').slice(0, 27)}`;
    const agent = await this.deps.agents.ensure(ownerId, input.agentId ?? 'erc8004-agent', input.registration?.name ?? 'Onboarded agent');
    await this.record(
      agent.actorId,
      { method: 'provider', verified: false, provider: { name: input.provider, issuer: identity.issuer, subject: identity.subject } },
      input.registration,
    );
    return this.issue(agent, scope, 'provider', false);
  }

  /** Refuses a SIWA signer that does not own the identity on its registry (before the nonce is spent). */
  private async checkOwner(siwa: SiwaIdentity, signer: string): Promise<void> {
    const owner = await this.deps.registry.ownerOf(siwa.registry, siwa.agentId);
    if (owner === null || owner.toLowerCase() !== signer.toLowerCase())
      throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'signer does not own the ERC-8004 identity');
  }

  /** The identity record, then the card: its verified identity and (when sent) the registration as its draft. */
  private async record(
    actorId: string,
    identity: Omit<AgentIdentityRecord, 'updatedAt' | 'cardDraft'>,
    registration: Registration | undefined,
  ): Promise<void> {
    const now = this.deps.clock.now();
    await updateRecord<AgentIdentityRecord>(this.deps.store, { collection: AGENT_IDENTITIES, id: actorId }, () => ({
      data: { ...identity, updatedAt: now },
    }));
    const { erc8004 } = identity;
    await this.deps.cards.onboarded(actorId, {
      verified: identity.verified,
      ...(erc8004 ? { registrations: [{ agentId: erc8004.agentId, agentRegistry: erc8004.registry }] } : {}),
      ...(registration ? { registration } : {}),
    });
  }

  private async issue(
    agent: Awaited<ReturnType<OnboardingAgents['ensure']>>,
    scope: KeyScope,
    method: 'siwe' | 'siwa' | 'provider',
    verified: boolean,
  ): Promise<OnboardingResult> {
    const token = await this.deps.tokens.issue({
      agentActorId: agent.actorId,
      agentId: agent.agentId,
      publicId: agent.publicId,
      scope,
      method,
    });
    return { agentId: agent.agentId, publicId: agent.publicId, ...token, verified, created: agent.created };
  }
}

/** `read` and `trade` only (interface 5 rule 8): `manage` is a 403 before any signature is checked. */
function onboardingScope(scope: z.output<typeof siweOnboardingSchema>['scope']): KeyScope {
  if (scope === 'manage') throw scopeNotAvailable();
  return scope;
}

/** The agentId of an ERC-8004 identity: readable when it fits, a digest of it otherwise. */
function siwaAgentId(siwa: SiwaIdentity): string {
  const id = `erc8004:${siwa.registry.chainId}:${siwa.registry.address.toLowerCase()}:${siwa.agentId}`;
  return id.length <= MAX_CHOSEN_ID ? id : `erc8004:${createHash('sha256').update(id).digest('hex').slice(0, 40)}`;
}
