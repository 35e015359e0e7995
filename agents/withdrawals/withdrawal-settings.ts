import bs58 from 'bs58';
import { getAddress, isAddress } from 'viem';
import { isAppError } from '../../src/errors/app-error.js';
import type { ClockPort } from '../../src/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../src/ports/store.port.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';

/**
 * Withdrawal settings of an account (`PUT .../control/withdraw`): off until its owner switches
 * them on. A plain record, one per agent: the latest write wins, and every check reads it fresh.
 */
export const WITHDRAWAL_SETTINGS_COLLECTION: CollectionSpec = { name: 'withdrawals.settings', indexes: [] };

export interface WithdrawalSettings {
  enabled: boolean;
  /** Recipients allowed, normalized per chain family (checksummed EVM, base58 Solana); empty: any. */
  allowlist: string[];
  /** Most USD the account may withdraw per UTC day; absent: no cap. */
  dailyCapUsd?: number;
  /** Withdrawals need a manage credential and a step-up token. */
  requireStepUp: boolean;
  /** ISO 8601; absent while never set. */
  updatedAt?: string;
}

const DEFAULT_WITHDRAWAL_SETTINGS: WithdrawalSettings = { enabled: false, allowlist: [], requireStepUp: false };

export class WithdrawalSettingsStore {
  constructor(private readonly deps: { store: StorePort; clock: ClockPort }) {}

  async get(subject: TradingSubject): Promise<WithdrawalSettings> {
    const doc = await this.deps.store.get<WithdrawalSettings>(WITHDRAWAL_SETTINGS_COLLECTION.name, subjectKey(subject));
    return doc ? { ...DEFAULT_WITHDRAWAL_SETTINGS, ...doc.data } : { ...DEFAULT_WITHDRAWAL_SETTINGS };
  }

  /** Replaces the settings (a PUT): fields left out take their defaults. */
  async put(subject: TradingSubject, settings: Omit<WithdrawalSettings, 'updatedAt'>): Promise<WithdrawalSettings> {
    const id = subjectKey(subject);
    const next: WithdrawalSettings = {
      ...settings,
      allowlist: [...new Set(settings.allowlist)],
      updatedAt: new Date(this.deps.clock.now()).toISOString(),
    };
    for (let attempt = 0; ; attempt++) {
      const doc = await this.deps.store.get<WithdrawalSettings>(WITHDRAWAL_SETTINGS_COLLECTION.name, id);
      try {
        await this.deps.store.put(WITHDRAWAL_SETTINGS_COLLECTION.name, id, { data: next, expectedVersion: doc?.version ?? 0 });
        return next;
      } catch (error) {
        // Two owners' PUTs at once: the last one stands, as with any PUT.
        if (!isAppError(error) || error.code !== 'VERSION_CONFLICT' || attempt >= 10) throw error;
      }
    }
  }
}

/** A recipient in its canonical form for its chain family, or null when it is not an address of that family. */
export function normalizeRecipient(family: 'solana' | 'evm', address: string): string | null {
  if (family === 'evm') return isAddress(address, { strict: false }) && !/^0x0{40}$/i.test(address) ? getAddress(address) : null;
  try {
    return bs58.decode(address).length === 32 ? address : null;
  } catch {
    return null;
  }
}

/** An allowlist entry in either family's form, for the settings route (which does not know the chain of later withdrawals). */
export function normalizeAllowlistEntry(address: string): string | null {
  return address.startsWith('0x') ? normalizeRecipient('evm', address) : normalizeRecipient('solana', address);
}
