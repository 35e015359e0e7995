/** The order's record (orders), shared by the machine and its public view. */
export type OrderStatus =
  | 'pending_approval'
  | 'approved'
  | 'submitting'
  | 'submitted'
  | 'filled'
  | 'failed'
  | 'rejected'
  | 'cancelled'
  | 'expired';

export interface OrderContext {
  orderId: string;
  subjectType: 'agent' | 'bot';
  subjectId: string;
  userId?: string;
  chain: string;
  side: 'buy' | 'sell' | 'swap';
  inputMint: string;
  outputMint: string;
  inputSymbol: string;
  outputSymbol: string;
  inputDecimals: number;
  outputDecimals: number;
  /** Base units, decimal strings. */
  amountIn: string;
  expectedOut: string;
  minOut: string;
  slippageBps: number;
  priceImpactBps: number;
  /** USD value of the input at quote time (risk policy, approvals, daily volume). */
  valueUsd: number;
  /** The venue's fee, in base units of the input token, as quoted; absent on orders placed before it was kept. */
  feeAmount?: string;
  venue: string;
  walletId: string;
  walletAddress: string;
  /** Where the request came from (`rest`, `mcp`, `command`, `dca`, `ask_bot`, `chat`, `telegram`, `discord`). */
  channel: string;
  /** The signal source the request named (the risk policy's `allowedSignalSources`). */
  signalSource?: string;
  /** Safety checks passed before the order was created, in order (audit). */
  checks: string[];
  status: OrderStatus;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  /** Epoch ms after which a pending approval expires. */
  approvalExpiresAt?: number;
  approvedAt?: number;
  submittedAt?: number;
  txSignature?: string;
  filledOut?: string;
  reason?: string;
  /** Failed before anything was sent, for a reason that may pass: a retry with the same key places a new attempt. */
  retryable?: boolean;
  /** Strategy and tick that produced the order (DCA). */
  strategy?: string;
  /** Id of that strategy: a buy confirmed after its tick ended is reported to it. */
  strategyId?: string;
  /** Due time (epoch ms) of the strategy's tick that placed it (its id derives from it, and an id is never parsed). */
  tickDueAt?: number;
  /**
   * Digest of the call that placed the order under an id derived from its idempotency key:
   * the key's later use with another request is refused even after its record expired.
   */
  requestDigest?: string;
}
