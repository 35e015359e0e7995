/**
 * What the service keeps about how each onboarded agent proved who it is: one record per
 * agent, by its actor id. A verified record carries `ownerCheckAt`, when the ERC-8004
 * ownership sweep next asks the registry about it (the sweep reads only the due ones).
 */
import type { CollectionSpec } from '../../../kernel/ports/store.port.js';
import type { Registration } from './onboarding.schemas.js';

export const AGENT_IDENTITIES = 'agent_identities';
export const IDENTITY_INDEX = { ownerCheckAt: 'ownerCheckAt' } as const;
export const ONBOARDING_COLLECTIONS: CollectionSpec[] = [{ name: AGENT_IDENTITIES, indexes: [IDENTITY_INDEX.ownerCheckAt] }];

export interface AgentIdentityRecord {
  method: 'siwe' | 'siwa' | 'provider';
  verified: boolean;
  wallet?: string;
  erc8004?: { agentId: string; registry: string };
  provider?: { name: string; issuer: string; subject: string };
  /** Why a verified agent lost `verified`: its identity's owner (null: burned or never minted) was no longer its wallet. */
  unverified?: { reason: 'owner_changed'; owner: string | null; at: number };
  /**
   * Records from before agent cards held the registration file here; the directory module
   * moves it to the agent's card once (card-drafts.migration.ts) and removes it.
   */
  cardDraft?: Registration;
  updatedAt: number;
}
