/**
 * The agent of an onboarded identity: its actor id, which is
 * also its agentId and its identity tokens' `sub`, is made from the identity alone, so the same
 * identity finds the same agent again (on any process, with no lookup table) and two identities
 * never share one. A provider's `agentId` is the caller's label inside its own identity: two
 * subjects using one label get two agents. Agents onboarded before these ids keep the scoped id
 * they were made with (`legacyActorId`), found there first.
 */
import { createHash } from 'node:crypto';
import { scopedActorId } from '../../../machines/agent-id.js';
import type { SiwaIdentity } from './siwa-message.js';

/** Who onboards: a wallet (plain SIWE), a wallet holding an ERC-8004 identity (SIWA), or a provider subject. */
export type OnboardingIdentity =
  | { method: 'siwe'; wallet: string }
  | { method: 'siwa'; wallet: string; erc8004: SiwaIdentity }
  | { method: 'provider'; issuer: string; subject: string; label?: string };

const MAX_LEGACY_CHOSEN_ID = 128;

/**
 * `agt_` and 27 base64url characters of a SHA-256 over the identity: the prefix of generated
 * ids (which have 16), no `~`, so shown as it is everywhere. Fields are joined by a newline,
 * which none of them holds (addresses, digits, a label's grammar; a JWT's `iss`/`sub` are
 * compared as the provider sent them, and a newline in them only makes another identity).
 */
export function onboardedActorId(identity: OnboardingIdentity): string {
  return `agt_${createHash('sha256').update(identityKey(identity)).digest('base64url').slice(0, 27)}`;
}

function identityKey(identity: OnboardingIdentity): string {
  switch (identity.method) {
    case 'siwe':
      return ['siwe', identity.wallet.toLowerCase()].join('\n');
    case 'siwa': {
      const { registry, agentId } = identity.erc8004;
      return ['siwa', identity.wallet.toLowerCase(), registry.chainId, registry.address.toLowerCase(), agentId].join('\n');
    }
    case 'provider':
      return ['provider', identity.issuer, identity.subject, identity.label ?? ''].join('\n');
  }
}

/** The owner of a provider subject's agents: no user record, an id derived from `iss` and `sub`. */
export function providerOwnerId(issuer: string, subject: string): string {
  return `idp_${createHash('sha256').update(`${issuer}\n${subject}`).digest('base64url').slice(0, 27)}`;
}

/** The actor id onboarding gave this identity's agent before ids were unique: the owner's scoped chosen id. */
export function legacyActorId(identity: OnboardingIdentity, ownerId: string): string {
  switch (identity.method) {
    case 'siwe':
      return scopedActorId(ownerId, 'erc8004-wallet');
    case 'siwa': {
      const { registry, agentId } = identity.erc8004;
      const id = `erc8004:${registry.chainId}:${registry.address.toLowerCase()}:${agentId}`;
      return scopedActorId(
        ownerId,
        id.length <= MAX_LEGACY_CHOSEN_ID ? id : `erc8004:${createHash('sha256').update(id).digest('hex').slice(0, 40)}`,
      );
    }
    case 'provider':
      return scopedActorId(ownerId, identity.label ?? 'erc8004-agent');
  }
}
