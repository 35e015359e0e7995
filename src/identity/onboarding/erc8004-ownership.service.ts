/**
 * A verified agent stays verified only while its wallet owns the ERC-8004 identity:
 * `ownerOf` is asked at each SIWA onboarding (before a
 * token is issued) and by a due job for every verified agent whose check is due (each at
 * least every `intervalMs`). When the identity changed hands the agent loses `verified`, its
 * card leaves the feed, its identity tokens are revoked, and `agent.identity.unverified` on
 * the agent's stream says why.
 */
import type { Logger } from 'pino';
import { z } from 'zod';
import { walletAuthError, WALLET_AUTH_MESSAGES } from '../../auth/wallet/wallet-auth.errors.js';
import { isAppError } from '../../../kernel/errors/app-error.js';
import type { AgentRegistryPort, RegistryRef } from '../../../kernel/ports/agent-registry.port.js';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import type { BusEventInput } from '../../../kernel/ports/event-bus.port.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';
import { updateRecord } from '../../../kernel/shared/record-update.js';
import type { IdentityTokens } from '../tokens/identity-tokens.service.js';
import { AGENT_IDENTITIES, IDENTITY_INDEX, type AgentIdentityRecord } from './agent-identity.records.js';
import type { SiwaIdentity } from './siwa-message.js';

/** The event that tells an agent's stream it lost its verified identity. */
const IDENTITY_UNVERIFIED = 'agent.identity.unverified';
const SWEEP_PAGE = 100;

/** What the sweep needs of a verified record; a stored record that lacks it cannot be checked at all. */
const checkableRecordSchema = z.object({
  verified: z.literal(true),
  wallet: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  erc8004: z.object({
    agentId: z.string().regex(/^\d{1,78}$/),
    registry: z.string().regex(/^eip155:\d{1,15}:0x[0-9a-fA-F]{40}$/),
  }),
});

type RecheckOutcome = 'owned' | 'unverified' | 'skipped' | 'unserved' | 'malformed';

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
   * failure (the registry unreachable, or answering nothing) is logged and left due for the next
   * sweep. A registry the configuration no longer serves is not asked (its agents stay verified
   * and due: a config mistake must not unverify them); a stored record the sweep cannot read
   * leaves the due index so it does not stop the sweep every run.
   */
  async sweep(): Promise<{ checked: number; unverified: number; failed: number; unserved: number; malformed: number }> {
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
    const totals = { checked: 0, unverified: 0, failed: 0, unserved: 0, malformed: 0 };
    const unservedRegistries = new Set<string>();
    for (const actorId of due) {
      try {
        const outcome = await this.recheck(actorId, unservedRegistries);
        if (outcome === 'owned') totals.checked++;
        if (outcome === 'unverified') totals.unverified++;
        if (outcome === 'unserved') totals.unserved++;
        if (outcome === 'malformed') totals.malformed++;
      } catch (error) {
        totals.failed++;
        this.deps.logger.warn({ agent: actorId, err: isAppError(error) ? error.message : error }, 'ERC-8004 ownership check failed');
      }
    }
    // Once per sweep, not once per agent: every agent of a dropped registry is due each run.
    if (unservedRegistries.size > 0)
      this.deps.logger.warn(
        { registries: [...unservedRegistries], agents: totals.unserved },
        'ERC-8004 registry no longer served (no RPC URL or not allowed): its agents were not checked and stay verified',
      );
    return totals;
  }

  private async recheck(actorId: string, unservedRegistries: Set<string>): Promise<RecheckOutcome> {
    const doc = await this.deps.store.get<AgentIdentityRecord>(AGENT_IDENTITIES, actorId);
    if (!doc?.data.verified) return 'skipped';
    const parsed = checkableRecordSchema.safeParse(doc.data);
    if (!parsed.success) return this.dropMalformed(actorId, parsed.error);
    const { wallet, erc8004 } = parsed.data;
    const registry = registryRefOf(erc8004.registry);
    if (!this.deps.registry.serves(registry)) {
      unservedRegistries.add(erc8004.registry);
      return 'unserved';
    }
    const owner = await this.deps.registry.ownerOf(registry, BigInt(erc8004.agentId));
    if (owner !== null && owner.toLowerCase() === wallet.toLowerCase()) {
      await updateRecord<AgentIdentityRecord>(this.deps.store, { collection: AGENT_IDENTITIES, id: actorId }, (current) =>
        current?.data.verified ? { data: current.data, indexes: { [IDENTITY_INDEX.ownerCheckAt]: this.nextCheckAt() } } : null,
      );
      return 'owned';
    }
    return (await this.unverify(actorId, owner)) ? 'unverified' : 'skipped';
  }

  /** Takes a record the sweep cannot check out of the due index (it stays as stored), logged once. */
  private async dropMalformed(actorId: string, error: z.ZodError): Promise<'malformed'> {
    const { changed } = await updateRecord<AgentIdentityRecord>(
      this.deps.store,
      { collection: AGENT_IDENTITIES, id: actorId },
      // Only while still due and still unreadable: two sweeps at once take it out (and log it) once.
      (current) =>
        current?.data.verified &&
        current.indexes[IDENTITY_INDEX.ownerCheckAt] !== undefined &&
        !checkableRecordSchema.safeParse(current.data).success
          ? { data: current.data }
          : null,
    );
    if (changed)
      this.deps.logger.error(
        { agent: actorId, issues: error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) },
        'stored agent identity cannot be checked for ERC-8004 ownership: taken out of the ownership sweep',
      );
    return 'malformed';
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
