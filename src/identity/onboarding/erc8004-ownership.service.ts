/**
 * A verified agent stays verified only while its wallet owns the ERC-8004 identity
 * (CONTRACT "ERC-8004 ownership"): `ownerOf` is asked at each SIWA onboarding (before a
 * token is issued) and by a due job for every verified agent whose check is due (each at
 * least every `intervalMs`). When the identity changed hands the agent loses `verified`, its
 * card leaves the feed, its identity tokens are revoked, and `agent.identity.unverified` on
 * the agent's stream says why.
 */
import type { Logger } from 'pino';
import { walletAuthError, WALLET_AUTH_MESSAGES } from '../../auth/wallet/wallet-auth.errors.js';
import { isAppError } from '../../errors/app-error.js';
import type { AgentRegistryPort, RegistryRef } from '../../ports/agent-registry.port.js';
import type { ClockPort } from '../../ports/clock.port.js';
import type { BusEventInput } from '../../ports/event-bus.port.js';
import type { StorePort } from '../../ports/store.port.js';
import { updateRecord } from '../../shared/record-update.js';
import type { IdentityTokens } from '../tokens/identity-tokens.service.js';
import { AGENT_IDENTITIES, IDENTITY_INDEX, type AgentIdentityRecord } from './agent-identity.records.js';
import type { SiwaIdentity } from './siwa-message.js';

/** The event that tells an agent's stream it lost its verified identity. */
const IDENTITY_UNVERIFIED = 'agent.identity.unverified';
const SWEEP_PAGE = 100;

export interface Erc8004OwnershipDeps {
  registry: AgentRegistryPort;
  store: StorePort;
  clock: ClockPort;
  tokens: Pick<IdentityTokens, 'revokeAgent'>;
  cards: { unverified(agentActorId: string): Promise<void> };
  publisher: { publish(stream: string, events: BusEventInput[]): void };
  logger: Logger;
  /** How often each verified agent's ownership is asked again (`ERC8004_OWNER_CHECK_MS`, at most an hour). */
  intervalMs: number;
}

export class Erc8004Ownership {
  constructor(private readonly deps: Erc8004OwnershipDeps) {}

  /** When a verified agent's ownership is next asked (the index the sweep reads). */
  nextCheckAt(): number {
    return this.deps.clock.now() + this.deps.intervalMs;
  }

  /**
   * SIWA onboarding, before the nonce is spent: 401 unless `signer` owns the identity. A refusal
   * first takes `verified` from the agent this wallet onboarded with it (`actorId`), if it had it.
   */
  async checkAtOnboarding(siwa: SiwaIdentity, signer: string, actorIds: readonly string[]): Promise<void> {
    const owner = await this.deps.registry.ownerOf(siwa.registry, siwa.agentId);
    if (owner !== null && owner.toLowerCase() === signer.toLowerCase()) return;
    for (const actorId of actorIds) await this.unverify(actorId, owner);
    throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'signer does not own the ERC-8004 identity');
  }

  /**
   * Verified agents onboarded before ownership was checked again have no `ownerCheckAt`:
   * each is made due now, once (a record that has one is left alone, so running it twice,
   * or in two processes, changes nothing). How many it made due.
   */
  async scheduleStoredRecords(): Promise<number> {
    let scheduled = 0;
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.list<AgentIdentityRecord>(AGENT_IDENTITIES, { limit: SWEEP_PAGE, ...(cursor ? { cursor } : {}) });
      for (const doc of page.items) {
        if (!doc.data.verified || doc.indexes[IDENTITY_INDEX.ownerCheckAt] !== undefined) continue;
        const { changed } = await updateRecord<AgentIdentityRecord>(
          this.deps.store,
          { collection: AGENT_IDENTITIES, id: doc.id },
          (current) =>
            current?.data.verified && current.indexes[IDENTITY_INDEX.ownerCheckAt] === undefined
              ? { data: current.data, indexes: { ...current.indexes, [IDENTITY_INDEX.ownerCheckAt]: this.deps.clock.now() } }
              : null,
        );
        if (changed) scheduled++;
      }
      cursor = page.nextCursor;
    } while (cursor);
    return scheduled;
  }

  /**
   * The due job: asks the registry about every verified agent whose check is due. One agent's
   * failure (the registry unreachable) is logged and left due for the next sweep.
   */
  async sweep(): Promise<{ checked: number; unverified: number; failed: number }> {
    const now = this.deps.clock.now();
    const due: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.find<AgentIdentityRecord>(
        AGENT_IDENTITIES,
        { index: IDENTITY_INDEX.ownerCheckAt, lte: now },
        { limit: SWEEP_PAGE, ...(cursor ? { cursor } : {}) },
      );
      due.push(...page.items.map((doc) => doc.id));
      cursor = page.nextCursor;
    } while (cursor);
    const totals = { checked: 0, unverified: 0, failed: 0 };
    for (const actorId of due) {
      try {
        const outcome = await this.recheck(actorId);
        if (outcome === 'owned') totals.checked++;
        if (outcome === 'unverified') totals.unverified++;
      } catch (error) {
        totals.failed++;
        this.deps.logger.warn({ agent: actorId, err: isAppError(error) ? error.message : error }, 'ERC-8004 ownership check failed');
      }
    }
    return totals;
  }

  private async recheck(actorId: string): Promise<'owned' | 'unverified' | 'skipped'> {
    const doc = await this.deps.store.get<AgentIdentityRecord>(AGENT_IDENTITIES, actorId);
    const record = doc?.data;
    if (!record?.verified || !record.erc8004 || !record.wallet) return 'skipped';
    const owner = await this.deps.registry.ownerOf(registryRefOf(record.erc8004.registry), BigInt(record.erc8004.agentId));
    if (owner !== null && owner.toLowerCase() === record.wallet.toLowerCase()) {
      await updateRecord<AgentIdentityRecord>(this.deps.store, { collection: AGENT_IDENTITIES, id: actorId }, (current) =>
        current?.data.verified ? { data: current.data, indexes: { [IDENTITY_INDEX.ownerCheckAt]: this.nextCheckAt() } } : null,
      );
      return 'owned';
    }
    return (await this.unverify(actorId, owner)) ? 'unverified' : 'skipped';
  }

  /**
   * Takes `verified` from the agent: its tokens and card first, the record last, so a crash
   * between leaves the record due and the next sweep finishes the work. True when this call
   * changed the record (and so told the agent's stream).
   */
  private async unverify(actorId: string, owner: string | null): Promise<boolean> {
    const doc = await this.deps.store.get<AgentIdentityRecord>(AGENT_IDENTITIES, actorId);
    if (!doc?.data.verified) return false;
    const revokedTokens = await this.deps.tokens.revokeAgent(actorId);
    await this.deps.cards.unverified(actorId);
    const at = this.deps.clock.now();
    const { changed, doc: after } = await updateRecord<AgentIdentityRecord>(
      this.deps.store,
      { collection: AGENT_IDENTITIES, id: actorId },
      (current) =>
        current?.data.verified
          ? { data: { ...current.data, verified: false, unverified: { reason: 'owner_changed', owner, at }, updatedAt: at } }
          : null,
    );
    if (!changed || !after) return false;
    const { erc8004, wallet } = after.data;
    this.deps.publisher.publish(`agent:${actorId}`, [
      {
        type: IDENTITY_UNVERIFIED,
        data: {
          agentId: actorId,
          reason: 'owner_changed',
          message: 'The ERC-8004 identity is no longer owned by the wallet that onboarded this agent',
          ...(erc8004 ? { erc8004: { agentId: erc8004.agentId, agentRegistry: erc8004.registry } } : {}),
          ...(wallet ? { wallet } : {}),
          owner,
          revokedTokens,
        },
      },
    ]);
    this.deps.logger.info({ agent: actorId, owner, revokedTokens }, 'agent lost its verified ERC-8004 identity');
    return true;
  }
}

/** `eip155:<chainId>:<address>` as the record keeps it. */
function registryRefOf(caip10: string): RegistryRef {
  const [, chainId, address] = caip10.split(':');
  return { chainId: Number(chainId), address: address ?? '' };
}
