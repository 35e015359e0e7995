import { EVM_CHAINS, type EvmChain } from '../../kernel/vocabulary/chains.js';
import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import { invalidAddress, parseEvmAddress } from '../../kernel/vocabulary/chain-address.js';
import { derivedId } from '../../kernel/vocabulary/ids.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { TRADING_RECORDS, subjectKey } from '../portfolio/portfolio.records.js';
import type { WalletView } from './wallet.types.js';

/**
 * EVM token approvals as the account records them (the trading routes "Record token approval",
 * "Record approval revocation"): which spender may move how much of which token from which
 * wallet, per chain. One record per (wallet, chain, token, spender), like the ERC-20
 * allowance it mirrors: recording again replaces the amount; the journal keeps the history.
 */
export const APPROVALS_COLLECTION = 'trading.approvals';
export const APPROVAL_COLLECTIONS: CollectionSpec[] = [{ name: APPROVALS_COLLECTION, indexes: [TRADING_RECORDS.subjectIndex] }];

/** Token approvals are ERC-20 allowances: every EVM chain has them. */
export const APPROVAL_CHAINS = EVM_CHAINS;
export type ApprovalChain = EvmChain;
/** `unlimited` (the max uint256 allowance) or a positive integer in the token's base units. */
export const APPROVAL_AMOUNT = /^(unlimited|[1-9]\d{0,77})$/;
/** The largest ERC-20 allowance; 78 digits allow more, so amounts are compared with it too. */
const MAX_UINT256 = (1n << 256n) - 1n;
/** Field messages (surfaces prefix the field name). */
export const APPROVAL_AMOUNT_MESSAGES = {
  shape: 'must be a positive integer in base units or "unlimited"',
  tooLarge: 'must be at most 2^256-1 (the uint256 maximum); "unlimited" records the largest allowance',
} as const;
/** Whether a well-formed amount (APPROVAL_AMOUNT) fits a uint256. */
export const approvalAmountFits = (amount: string): boolean => amount === 'unlimited' || BigInt(amount) <= MAX_UINT256;
const APPROVAL_MESSAGES = {
  notFound: 'Approval not found',
  noWallet: 'walletId is required: the account has no EVM wallet',
} as const;

const approvalRecord = z.object({
  approvalId: z.string(),
  subject: z.string(),
  chain: z.enum(APPROVAL_CHAINS),
  walletId: z.string(),
  /** Address of the wallet that granted the allowance. */
  owner: z.string(),
  token: z.string(),
  spender: z.string(),
  amount: z.string(),
  status: z.enum(['active', 'revoked']),
  createdAt: z.string(),
  updatedAt: z.string(),
  revokedAt: z.string().optional(),
});
type ApprovalRecord = z.infer<typeof approvalRecord>;

/** An approval as surfaces show it (the record without its account): the tools' output schema. */
export const tokenApprovalSchema = approvalRecord.omit({ subject: true });
export type TokenApproval = z.infer<typeof tokenApprovalSchema>;

export interface ApprovalTarget {
  chain: ApprovalChain;
  /** Token contract address (0x, 40 hex digits). */
  token: string;
  spender: string;
  /** The approving wallet; the account's default EVM wallet when absent. */
  walletId?: string;
}

/** The wallet lookup approvals need; `WalletService.activeWallet` fits. */
export interface ApprovalWallets {
  activeWallet(subject: TradingSubject, chain: 'evm', walletId?: string): Promise<WalletView | null>;
}

export interface TokenApprovalsDeps {
  store: StorePort;
  clock: ClockPort;
  wallets: ApprovalWallets;
}

const PAGE = 200;

/** Records and revokes EVM token approvals of a trading account. */
export class TokenApprovalsService {
  constructor(private readonly deps: TokenApprovalsDeps) {}

  /** Records (or replaces) the allowance of `spender` over `token`; 404 for an unknown or revoked `walletId`. */
  async record(subject: TradingSubject, input: ApprovalTarget & { amount: string }): Promise<TokenApproval> {
    checkTarget(input);
    if (!APPROVAL_AMOUNT.test(input.amount)) throw AppError.validation([`amount ${APPROVAL_AMOUNT_MESSAGES.shape}`]);
    if (!approvalAmountFits(input.amount)) throw AppError.validation([`amount ${APPROVAL_AMOUNT_MESSAGES.tooLarge}`]);
    const wallet = await this.deps.wallets.activeWallet(subject, 'evm', input.walletId);
    if (!wallet) throw AppError.validation([APPROVAL_MESSAGES.noWallet]);
    const approvalId = approvalIdOf(subject, input, wallet.walletId);
    return this.write(approvalId, 'approval.recorded', (current, now) => ({
      approvalId,
      subject: subjectKey(subject),
      chain: input.chain,
      walletId: wallet.walletId,
      owner: wallet.address,
      token: input.token,
      spender: input.spender,
      amount: input.amount,
      status: 'active',
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    }));
  }

  /** Marks the active approval of (wallet, chain, token, spender) revoked; 404 `Approval not found` when there is none. */
  async revoke(subject: TradingSubject, input: ApprovalTarget): Promise<TokenApproval> {
    checkTarget(input);
    // A wallet revoked since it approved still has its approvals to revoke: no active check for a named wallet.
    const walletId = input.walletId ?? (await this.deps.wallets.activeWallet(subject, 'evm'))?.walletId;
    if (!walletId) throw AppError.notFound(APPROVAL_MESSAGES.notFound);
    const approvalId = approvalIdOf(subject, input, walletId);
    return this.write(approvalId, 'approval.revoked', (current, now) => {
      if (current?.status !== 'active' || current.subject !== subjectKey(subject)) throw AppError.notFound(APPROVAL_MESSAGES.notFound);
      return { ...current, status: 'revoked', updatedAt: now, revokedAt: now };
    });
  }

  /** The account's approvals, oldest first; `status` filters. */
  async list(subject: TradingSubject, filter: { status?: 'active' | 'revoked' } = {}): Promise<TokenApproval[]> {
    const out: ApprovalRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.deps.store.find<unknown>(
        APPROVALS_COLLECTION,
        { index: TRADING_RECORDS.subjectIndex, eq: subjectKey(subject) },
        { limit: PAGE, ...(cursor ? { cursor } : {}) },
      );
      out.push(...page.items.map(parseRecord));
      cursor = page.nextCursor;
    } while (cursor);
    return out
      .filter((record) => filter.status === undefined || record.status === filter.status)
      .sort((a, b) => (a.createdAt === b.createdAt ? (a.approvalId < b.approvalId ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1))
      .map(toApproval);
  }

  /** CAS write of the record `next` computes from the current one, with a journal entry (`updateRecord`: re-read on conflict). */
  private async write(
    approvalId: string,
    event: string,
    next: (current: ApprovalRecord | undefined, now: string) => ApprovalRecord,
  ): Promise<TokenApproval> {
    const { doc } = await updateRecord<unknown>(this.deps.store, { collection: APPROVALS_COLLECTION, id: approvalId }, (current) => {
      const now = this.deps.clock.now();
      const record = next(current ? parseRecord(current) : undefined, new Date(now).toISOString());
      return {
        data: record,
        indexes: { [TRADING_RECORDS.subjectIndex]: record.subject },
        journal: { event: { type: event, amount: record.amount }, state: record.status, at: now },
      };
    });
    return toApproval(parseRecord(doc!));
  }
}

function checkTarget(input: ApprovalTarget): void {
  const problems = (['token', 'spender'] as const)
    .filter((field) => !parseEvmAddress(input[field]))
    .map((field) => invalidAddress(field, 'EVM'));
  if (!APPROVAL_CHAINS.includes(input.chain)) problems.push(`chain must be one of ${APPROVAL_CHAINS.join(', ')}`);
  if (problems.length) throw AppError.validation(problems);
}

/** One id per allowance slot; addresses compared without their checksum case. */
function approvalIdOf(subject: TradingSubject, target: ApprovalTarget, walletId: string): string {
  const parts = [subjectKey(subject), target.chain, walletId, target.token.toLowerCase(), target.spender.toLowerCase()];
  return derivedId('apr', parts.join('\n'));
}

function parseRecord(doc: StoredDocument<unknown>): ApprovalRecord {
  const parsed = approvalRecord.safeParse(doc.data);
  if (!parsed.success) throw AppError.internal(`Approval record ${doc.id} does not have the expected fields`);
  return parsed.data;
}

function toApproval(record: ApprovalRecord): TokenApproval {
  const { subject: _subject, ...approval } = record;
  return approval;
}
