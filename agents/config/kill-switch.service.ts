import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import { CHAINS, type Chain } from '../../kernel/ports/venue.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import type { KillSwitch } from './trading-config.types.js';

/** Service-wide trading settings, one document each; the kill switch is `kill-switch`. */
export const TRADING_SETTINGS_COLLECTION = 'trading.settings';
export const KILL_SWITCH_DOC_ID = 'kill-switch';
export const KILL_SWITCH_COLLECTIONS: CollectionSpec[] = [{ name: TRADING_SETTINGS_COLLECTION, indexes: [] }];
/** How long a process trusts its last read of the stored switches: the longest another process trades on after a change. */
export const KILL_SWITCH_CACHE_MS = 1000;

/** Chains switched on at runtime, each with the ISO time it was switched on. */
interface KillSwitchRecord {
  active: Partial<Record<Chain, string>>;
}

/** One chain's switch as operators see it. */
export interface KillSwitchChainStatus {
  chain: Chain;
  active: boolean;
  /** Why it is on: `configuration` (TRADING_KILL_SWITCH, cannot be cleared at runtime) or `operator`. */
  source?: 'configuration' | 'operator';
  /** When an operator switched it on (ISO 8601). */
  since?: string;
}

/** What the ops route shows. */
export interface KillSwitchStatus {
  active: Chain[];
  chains: KillSwitchChainStatus[];
}

/** What the kill switch reads and writes through, and its start state. */
export interface KillSwitchDeps {
  store: StorePort;
  clock: ClockPort;
  /** Chains on from the configuration (`config.trading.killSwitch`). */
  configured: readonly Chain[];
  /** Default `KILL_SWITCH_CACHE_MS`. */
  cacheMs?: number;
}

/**
 * Per-chain kill switch. Chains named in the configuration are on for the life of the
 * process: an emergency switch set at deploy time must not be undone by a stale runtime
 * setting. Operators switch further chains on and off at runtime; that state is stored, so
 * every process sees it within `cacheMs`, and the swap hot path reads the store at most
 * once per window.
 */
export class StoreKillSwitch implements KillSwitch {
  private readonly configured: ReadonlySet<Chain>;
  private readonly cacheMs: number;
  private cached: { readAt: number; record: KillSwitchRecord } | undefined;
  private loading: Promise<KillSwitchRecord> | undefined;
  /** Grows with each local write, so a read started before the write cannot overwrite its result. */
  private generation = 0;

  constructor(private readonly deps: KillSwitchDeps) {
    this.configured = new Set(deps.configured);
    this.cacheMs = deps.cacheMs ?? KILL_SWITCH_CACHE_MS;
  }

  async isActive(chain: Chain): Promise<boolean> {
    if (this.configured.has(chain)) return true;
    return (await this.record()).active[chain] !== undefined;
  }

  async active(): Promise<Chain[]> {
    return (await this.status()).active;
  }

  async status(): Promise<KillSwitchStatus> {
    const record = await this.record();
    const chains = CHAINS.map((chain): KillSwitchChainStatus => {
      if (this.configured.has(chain)) return { chain, active: true, source: 'configuration' };
      const since = record.active[chain];
      return since === undefined ? { chain, active: false } : { chain, active: true, source: 'operator', since };
    });
    return { active: chains.filter((entry) => entry.active).map((entry) => entry.chain), chains };
  }

  /**
   * Switches a chain on or off for every process (`updateRecord`: compare-and-set, retried
   * on conflict with backoff). 409 when switching off a chain the configuration keeps on.
   */
  async set(chain: Chain, active: boolean): Promise<KillSwitchStatus> {
    if (!active && this.configured.has(chain)) {
      throw AppError.conflict(`Kill switch for ${chain} is set by configuration (TRADING_KILL_SWITCH); change it there and restart`);
    }
    const { doc } = await updateRecord<KillSwitchRecord>(
      this.deps.store,
      { collection: TRADING_SETTINGS_COLLECTION, id: KILL_SWITCH_DOC_ID },
      (stored) => {
        const current: KillSwitchRecord = stored?.data ?? { active: {} };
        if ((current.active[chain] !== undefined) === active) return null;
        const next: KillSwitchRecord = { active: { ...current.active } };
        const at = this.deps.clock.now();
        if (active) next.active[chain] = new Date(at).toISOString();
        else delete next.active[chain];
        // The journal keeps every change with its time, for incident reviews.
        return { data: next, journal: { event: { type: 'kill-switch.set', chain, active }, state: next, at } };
      },
    );
    return this.remember(doc?.data ?? { active: {} });
  }

  /** This process sees its own change at once; others within their cache window. */
  private remember(record: KillSwitchRecord): Promise<KillSwitchStatus> {
    this.generation++;
    this.cached = { readAt: this.deps.clock.now(), record };
    return this.status();
  }

  /** The stored switches, read at most once per window; concurrent callers share one read. */
  private async record(): Promise<KillSwitchRecord> {
    const cached = this.cached;
    if (cached && this.deps.clock.now() - cached.readAt < this.cacheMs) return cached.record;
    this.loading ??= this.load().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  private async load(): Promise<KillSwitchRecord> {
    const generation = this.generation;
    // The window starts when the read starts: a slow read must not stretch how stale the answer may be.
    const readAt = this.deps.clock.now();
    const doc = await this.deps.store.get<KillSwitchRecord>(TRADING_SETTINGS_COLLECTION, KILL_SWITCH_DOC_ID);
    const record = doc?.data ?? { active: {} };
    if (generation === this.generation) this.cached = { readAt, record };
    return record;
  }
}
