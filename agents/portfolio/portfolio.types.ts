/**
 * What `ask_bot` and `trading_portfolio_summary` read about the agent (or legacy bot)
 * a call acts on. The reader is declared here and implemented over the actor runtime's
 * reads and the store (`status-reader.ts`), so agents/ never imports the runtime.
 */

/** The agent or legacy bot whose trading account is read; a bot has its own account. */
export interface TradingSubject {
  type: 'agent' | 'bot';
  id: string;
}

export interface SubjectStatus {
  subjectType: TradingSubject['type'];
  subjectId: string;
  name: string;
  /** Lifecycle state of the agent (`created`, `active`, `paused`, `archived`) or bot (`active`, `deleted`). */
  status: string;
  tradingEnabled: boolean;
}

export interface WalletSummary {
  walletId: string;
  chain: string;
  address: string;
  custodial: boolean;
}

export interface PositionSummary {
  chain: string;
  /** Mint or contract address. */
  token: string;
  symbol?: string;
  /** Whole tokens, decimal string. */
  amount: string;
  /** Absent when no price is known; such a position adds nothing to `valueUsd`. */
  valueUsd?: string;
}

/**
 * `trading_portfolio_summary`. The subject is named by `subjectType` + `subjectId`
 * rather than `agentId`, because a legacy bot answers with the same shape for its own
 * account. `valueUsd` is the sum of priced positions, two decimals.
 */
export interface PortfolioSummary extends SubjectStatus {
  wallets: WalletSummary[];
  positions: PositionSummary[];
  /** Orders not yet in a final state (pending approval, approved, submitting, submitted). */
  openOrders: number;
  valueUsd: string;
  /** ISO 8601: when the numbers were read. */
  asOf: string;
}

export interface StatusReader {
  /** 404 `Agent not found` / `Bot not found` when the subject does not exist. */
  agentStatus(subject: TradingSubject): Promise<SubjectStatus>;
  portfolio(subject: TradingSubject): Promise<PortfolioSummary>;
}
