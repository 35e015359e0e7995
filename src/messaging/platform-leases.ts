import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Platform } from '../../machines/bot.machine.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';

/**
 * Who runs a started connector, and where it left off. Several processes may serve one
 * store (production profile): a platform must be polled by one of them at a time (two
 * Telegram pollers of one token are refused by Telegram; two Discord pollers would answer
 * twice). A lease is a record taken and renewed with compare-and-set; a process that died
 * loses it when `until` passes, and another takes over from the stored cursor.
 */
export const PLATFORM_LEASE_COLLECTION: CollectionSpec = { name: 'bots.platform-leases', indexes: [] };

interface Lease {
  holder: string;
  /** Epoch ms; 0 when released. */
  until: number;
  /** The connection's cursor after the last message handled. */
  cursor?: string;
  /** Which credentials the cursor belongs to (a new token or channel list starts afresh). */
  settingsVersion?: number;
}

export class PlatformLeases {
  /** This process, as lease holder. */
  readonly holder = `${hostname()}:${process.pid}:${randomBytes(6).toString('base64url')}`;

  constructor(private readonly deps: { store: StorePort; clock: ClockPort; leaseMs: number }) {}

  /** Takes (or renews) the lease; false when another live process holds it. */
  async take(botId: string, platform: Platform): Promise<boolean> {
    const now = this.deps.clock.now();
    let taken = false;
    await updateRecord<Lease>(this.deps.store, ref(botId, platform), (current) => {
      taken = false;
      if (current && current.data.holder !== this.holder && current.data.until > now) return null;
      taken = true;
      return { data: { ...(current?.data ?? {}), holder: this.holder, until: now + this.deps.leaseMs } };
    });
    return taken;
  }

  /** The stored cursor, when it belongs to these credentials. */
  async cursor(botId: string, platform: Platform, settingsVersion: number): Promise<string | undefined> {
    const doc = await this.deps.store.get<Lease>(PLATFORM_LEASE_COLLECTION.name, ref(botId, platform).id);
    return doc?.data.settingsVersion === settingsVersion ? doc.data.cursor : undefined;
  }

  /** Stores the cursor; throws when the lease was lost (another process runs the connector now). */
  async save(botId: string, platform: Platform, cursor: string, settingsVersion: number): Promise<void> {
    await updateRecord<Lease>(this.deps.store, ref(botId, platform), (current) => {
      if (current?.data.holder !== this.holder) throw AppError.conflict(`Lease of ${platform} connector of ${botId} was lost`);
      return { data: { ...current.data, cursor, settingsVersion } };
    });
  }

  /** Lets another process take over at once (a graceful stop). */
  async release(botId: string, platform: Platform): Promise<void> {
    await updateRecord<Lease>(this.deps.store, ref(botId, platform), (current) =>
      current?.data.holder === this.holder ? { data: { ...current.data, until: 0 } } : null,
    );
  }
}

function ref(botId: string, platform: Platform) {
  return { collection: PLATFORM_LEASE_COLLECTION.name, id: `${botId}:${platform}` };
}
