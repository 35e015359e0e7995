import type { WalletChain, WalletSigner } from '../../kernel/ports/venue.port.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';

/**
 * Wallets of a trading account (the trading routes wallets, trading accounts).
 * Stored in `trading.wallets` indexed by `subject`; key material is sealed in the record
 * and never leaves the wallet service.
 */

/** custodial: key generated and held here; external: address only (no signing); delegate: custodial with a spending cap. */
export type WalletKind = 'custodial' | 'external' | 'delegate';

/** A wallet as every surface shows it: never any key material. */
export interface WalletView {
  walletId: string;
  chain: WalletChain;
  address: string;
  custodial: boolean;
  kind: WalletKind;
  isDefault: boolean;
  status: 'active' | 'revoked';
  label?: string;
  /** Delegate wallets: most USD the wallet may spend in total; `spentUsd` so far. */
  spendingCapUsd?: number;
  spentUsd?: number;
  createdAt: string;
}

/** What the trading pipeline needs of wallets. */
export interface WalletDirectory {
  /**
   * The active default wallet of a chain family that can sign (custodial or delegate; only
   * `kinds` when given: the account's wallet mode), or null.
   */
  signingWallet(subject: TradingSubject, chain: WalletChain, walletId?: string, kinds?: readonly WalletKind[]): Promise<WalletView | null>;
  /**
   * A signer for a custodial or delegate wallet of the subject; 404 otherwise. `checked`: the
   * wallet as this request's checks read it a moment ago (not read again here; the key is
   * still read when it signs).
   */
  signer(subject: TradingSubject, walletId: string, checked?: WalletView): Promise<WalletSigner>;
  /**
   * Delegate wallets: reserves `usd` against the spending cap (400 when it would exceed it).
   * No-op for other kinds.
   */
  reserveSpend(subject: TradingSubject, walletId: string, usd: number): Promise<void>;
  /** Gives back a reservation whose trade moved nothing. No-op for other kinds. */
  releaseSpend(subject: TradingSubject, walletId: string, usd: number): Promise<void>;
}
