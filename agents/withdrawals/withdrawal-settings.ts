import { isAppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import type { WalletChain } from '../../kernel/ports/venue.port.js';
import { invalidAddress, isKnownSolanaProgram, notTokenOwner, parseAddress } from '../../kernel/vocabulary/chain-address.js';
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

const ZERO_ADDRESS = /^0x0{40}$/i;

/**
 * Why `address` cannot receive a withdrawal on a chain of `family` (a 400 message naming
 * `field`), or undefined: not an address of the family (an EVM one in mixed case with a wrong
 * EIP-55 checksum included), the EVM zero address (no one holds its key), or a well-known Solana
 * program or sysvar, which can own no tokens. An address off the ed25519 curve (a PDA) is taken:
 * a program owns it and can hold tokens for it (vaults, multisigs).
 */
export function recipientProblem(family: WalletChain, address: string, field: string, chain: string): string | undefined {
  const parsed = parseAddress(family, address);
  if (!parsed || ZERO_ADDRESS.test(parsed)) return invalidAddress(field, chain);
  if (family === 'solana' && isKnownSolanaProgram(parsed)) return notTokenOwner(field);
  return undefined;
}

/** A recipient `recipientProblem` found nothing against, in its canonical form (EIP-55 on EVM, as given on Solana). */
export function normalizeRecipient(family: WalletChain, address: string): string {
  return parseAddress(family, address) ?? address;
}

/** The family an allowlist entry names (the settings route does not know the chain of later withdrawals) and its name in messages. */
function entryFamily(address: string): { family: WalletChain; chain: string } {
  return address.startsWith('0x') ? { family: 'evm', chain: 'EVM' } : { family: 'solana', chain: 'Solana' };
}

/** Why an allowlist entry is refused (a 400 message naming `field`), or undefined. */
export function allowlistEntryProblem(address: string, field: string): string | undefined {
  const { family, chain } = entryFamily(address);
  return recipientProblem(family, address, field, chain);
}

/** An allowlist entry `allowlistEntryProblem` found nothing against, in its canonical form. */
export function normalizeAllowlistEntry(address: string): string {
  return normalizeRecipient(entryFamily(address).family, address);
}
