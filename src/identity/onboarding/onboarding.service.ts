/**
 * ERC-8004 onboarding (the public onboarding and directory routes, identity access tokens): an external agent
 * proves who it is — its owner wallet's EIP-4361 signature, the SIWA form of it for an
 * ERC-8004 identity checked on chain, or a configured identity provider's token — and gets
 * an agent (the same one each time it comes back with the same proof) and an identity token.
 */
import type { z } from 'zod';
import type { KeyScope } from '../../../kernel/vocabulary/scopes.js';
import { requirePurpose } from '../../auth/wallet/message-purpose.js';
import { WALLET_AUTH_MESSAGES, walletAuthError } from '../../auth/wallet/wallet-auth.errors.js';
import { parseWalletInput } from '../../auth/wallet/wallet-login.schemas.js';
import type { WalletLoginService } from '../../auth/wallet/wallet-login.service.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { AgentRegistryPort } from '../../../kernel/ports/agent-registry.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { IdentityProviderPort } from '../../../kernel/ports/identity-provider.port.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';
import { updateRecord } from '../../../kernel/shared/record-update.js';
import { scopeNotAvailable, unknownProvider } from '../tokens/identity-token.errors.js';
import type { IdentityTokens, IssuedToken } from '../tokens/identity-tokens.service.js';
import { AGENT_IDENTITIES, IDENTITY_INDEX, type AgentIdentityRecord } from './agent-identity.records.js';
import type { Erc8004Ownership } from './erc8004-ownership.service.js';
import { legacyActorId, onboardedActorId, providerOwnerId, type OnboardingIdentity } from './onboarded-agent-ids.js';
import { identityOnboardingSchema, siweOnboardingSchema, type Registration } from './onboarding.schemas.js';
import { splitSiwaMessage } from './siwa-message.js';

/** The MCP and agent errors, word for word: the claim route's refusal, and onboarding's once another holds the claim. */
export const AGENT_ALREADY_CLAIMED = 'Agent already claimed';

/** The agent onboarding answers with. */
export interface OnboardedAgent {
  actorId: string;
  /** The agentId clients know: the token's `sub`. */
  agentId: string;
  publicId: string;
  created: boolean;
  /** The operator who claimed it (control/claim), when one did. */
  claimedBy?: string;
}

/** How the onboarding finds or makes the agent of an identity; the composition backs it with the account services. */
export interface OnboardingAgents {
  /** The owner of agents onboarded by an EVM wallet (the wallet's user, made on first use). */
  walletOwner(address: string): Promise<string>;
  /** That user's id, without making it. */
  walletOwnerId(address: string): string;
  /**
   * The agent of `actorId`, else the one onboarding made at `formerActorId` before ids were
   * unique; created (and activated) as `actorId` for `ownerId` when neither exists.
   */
  ensure(ownerId: string, ids: { actorId: string; formerActorId: string }, name: string): Promise<OnboardedAgent>;
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
  /** The agent's ERC-8004 identity is no longer its own: out of the feed, no registrations. */
  unverified(agentActorId: string): Promise<void>;
}

export type OnboardingResult = IssuedToken & { agentId: string; publicId: string; verified: boolean; created: boolean };

export interface OnboardingDeps {
  wallet: Pick<WalletLoginService, 'verifyEvm'>;
  registry: Pick<AgentRegistryPort, 'serves'>;
  ownership: Pick<Erc8004Ownership, 'checkAtOnboarding' | 'nextCheckAt'>;
  providers: IdentityProviderPort;
  agents: OnboardingAgents;
  tokens: Pick<IdentityTokens, 'issue'>;
  cards: OnboardingCards;
  store: StorePort;
  clock: ClockPort;
}

export class OnboardingService {
  constructor(private readonly deps: OnboardingDeps) {}

  /** `POST /api/public/erc8004/onboarding/siwe`. */
  async siwe(body: unknown): Promise<OnboardingResult> {
    const input = parseWalletInput(siweOnboardingSchema, body);
    const scope = onboardingScope(input.scope);
    requirePurpose(input.message, 'onboarding');
    const { eip4361, siwa } = splitSiwaMessage(input.message);
    if (siwa && !this.deps.registry.serves(siwa.registry)) throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'registry not served');
    const identityOf = (wallet: string): OnboardingIdentity =>
      siwa ? { method: 'siwa', wallet, erc8004: siwa } : { method: 'siwe', wallet };
    const verified = await this.deps.wallet.verifyEvm({
      message: eip4361,
      signature: input.signature,
      ...(siwa
        ? {
            signedMessage: input.message,
            extraChainIds: [siwa.registry.chainId],
            // The owner is asked before every token of a verified agent; a "no" also unverifies the agent this wallet had.
            beforeConsume: (signer) => {
              const identity = identityOf(signer.address);
              const ids = [onboardedActorId(identity), legacyActorId(identity, this.deps.agents.walletOwnerId(signer.address))];
              return this.deps.ownership.checkAtOnboarding(siwa, signer.address, ids);
            },
          }
        : {}),
    });
    const ownerId = await this.deps.agents.walletOwner(verified.address);
    const name = input.registration?.name ?? (siwa ? `ERC-8004 agent ${siwa.agentId}` : 'Onboarded agent');
    const agent = await this.agentOf(identityOf(verified.address), ownerId, name);
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
    const { issuer, subject } = await this.deps.providers.verify(input.provider, input.providerToken);
    // The provider's iss + sub are the identity; `agentId` is its label for one of its agents.
    const agent = await this.agentOf(
      { method: 'provider', issuer, subject, label: input.agentId ?? 'erc8004-agent' },
      providerOwnerId(issuer, subject),
      input.registration?.name ?? 'Onboarded agent',
    );
    await this.record(
      agent.actorId,
      { method: 'provider', verified: false, provider: { name: input.provider, issuer, subject } },
      input.registration,
    );
    return this.issue(agent, scope, 'provider', false);
  }

  /**
   * The identity's agent. Once an operator claimed it, only the claimant (signing in with
   * their own wallet) may onboard into it: the onboarding wallet's say ended with the claim.
   */
  private async agentOf(identity: OnboardingIdentity, ownerId: string, name: string): Promise<OnboardedAgent> {
    const agent = await this.deps.agents.ensure(
      ownerId,
      { actorId: onboardedActorId(identity), formerActorId: legacyActorId(identity, ownerId) },
      name,
    );
    if (agent.claimedBy !== undefined && agent.claimedBy !== ownerId) throw new AppError('RESOURCE_CONFLICT', AGENT_ALREADY_CLAIMED);
    return agent;
  }

  /** The identity record (a verified one due for its next ownership check), then the card: its verified identity and (when sent) the registration as its draft. */
  private async record(
    actorId: string,
    identity: Omit<AgentIdentityRecord, 'updatedAt' | 'cardDraft' | 'unverified'>,
    registration: Registration | undefined,
  ): Promise<void> {
    const now = this.deps.clock.now();
    await updateRecord<AgentIdentityRecord>(this.deps.store, { collection: AGENT_IDENTITIES, id: actorId }, () => ({
      data: { ...identity, updatedAt: now },
      ...(identity.verified ? { indexes: { [IDENTITY_INDEX.ownerCheckAt]: this.deps.ownership.nextCheckAt() } } : {}),
    }));
    const { erc8004 } = identity;
    await this.deps.cards.onboarded(actorId, {
      verified: identity.verified,
      ...(erc8004 ? { registrations: [{ agentId: erc8004.agentId, agentRegistry: erc8004.registry }] } : {}),
      ...(registration ? { registration } : {}),
    });
  }

  private async issue(
    agent: OnboardedAgent,
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

/** `read` and `trade` only (authentication rule 8): `manage` is a 403 before any signature is checked. */
function onboardingScope(scope: z.output<typeof siweOnboardingSchema>['scope']): KeyScope {
  if (scope === 'manage') throw scopeNotAvailable();
  return scope;
}
