import { assign, emit, setup } from 'xstate';
import type { MachineDefinition } from './machine-definition.types.js';

/**
 * One withdrawal from an agent's custodial wallet (agent control plane):
 * `requested` → `signed` → `broadcast` → `confirmed` | `failed`. `signed` holds the signed
 * transaction and is persisted before anything is broadcast, so a crash leaves either
 * nothing on chain (`requested`: nothing was signed) or a transaction recovery can look up
 * by its hash and, while the chain has never seen it, send again byte for byte.
 * Where the chain is a local ledger (paper), the same three steps are taken in one commit
 * with the transfer's writes (the service continues `sign` with `broadcast` and `confirm`),
 * so a crash leaves both or neither, and there are no bytes in flight to persist first.
 * Actors an older build settled in one event of its own are stored as any `confirmed` one:
 * only their journal names that event, and a journal is read, never replayed.
 */
export type WithdrawalStatus = 'requested' | 'signed' | 'broadcast' | 'confirmed' | 'failed';

export interface WithdrawalContext {
  withdrawalId: string;
  subjectType: 'agent' | 'bot';
  subjectId: string;
  /** The owner of the account (the operator), when known. */
  userId?: string;
  chain: string;
  walletId: string;
  /** The custodial wallet's address. */
  from: string;
  to: string;
  /** Mint (Solana) or contract address (EVM); the native markers for SOL and ETH. */
  token: string;
  symbol: string;
  decimals: number;
  /** Base units, decimal string. */
  amount: string;
  /** USD value at request time; null when the token has no price. */
  valueUsd: number | null;
  /** UTC day (`YYYY-MM-DD`) whose cap this withdrawal reserved `valueUsd` of; absent when no cap was set. */
  capDay?: string;
  /** Digest of the request that created it under an id derived from an idempotency key. */
  requestDigest?: string;
  status: WithdrawalStatus;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  txSignature?: string;
  /** The signed transaction (base64 / hex): public once broadcast, never shown by views. */
  signedTx?: string;
  validUntilHeight?: number;
  reason?: string;
}

export type WithdrawalInput = Omit<WithdrawalContext, 'status' | 'updatedAt'>;

/** Time is data: every event carries when it happened (`at`, epoch ms). */
export type WithdrawalEvent =
  | { type: 'withdrawal.sign'; at: number; txSignature: string; signedTx: string; validUntilHeight?: number }
  | { type: 'withdrawal.broadcast'; at: number }
  | { type: 'withdrawal.confirm'; at: number }
  | { type: 'withdrawal.fail'; at: number; reason: string };

/** What surfaces show (`{withdrawalId, chain, to, token, amount, status, txHash?, createdAt}`). */
export interface WithdrawalView {
  withdrawalId: string;
  agentId?: string;
  botId?: string;
  chain: string;
  from: string;
  to: string;
  token: string;
  symbol: string;
  amount: string;
  status: WithdrawalStatus;
  txHash?: string;
  reason?: string;
  createdAt: string;
  updatedAt: string;
}

export function toWithdrawalView(context: WithdrawalContext): WithdrawalView {
  return {
    withdrawalId: context.withdrawalId,
    ...(context.subjectType === 'agent' ? { agentId: context.subjectId } : { botId: context.subjectId }),
    chain: context.chain,
    from: context.from,
    to: context.to,
    token: context.token,
    symbol: context.symbol,
    amount: context.amount,
    status: context.status,
    ...(context.txSignature ? { txHash: context.txSignature } : {}),
    ...(context.reason ? { reason: context.reason } : {}),
    createdAt: new Date(context.createdAt).toISOString(),
    updatedAt: new Date(context.updatedAt).toISOString(),
  };
}

export interface WithdrawalEmitted {
  type: 'withdrawal.created' | 'withdrawal.updated';
  withdrawal: WithdrawalView;
  [key: string]: unknown;
}

function patch(event: WithdrawalEvent, status: WithdrawalStatus): Partial<WithdrawalContext> {
  const base = { status, updatedAt: event.at };
  switch (event.type) {
    case 'withdrawal.sign':
      return {
        ...base,
        txSignature: event.txSignature,
        signedTx: event.signedTx,
        ...(event.validUntilHeight === undefined ? {} : { validUntilHeight: event.validUntilHeight }),
      };
    case 'withdrawal.fail':
      return { ...base, reason: event.reason };
    default:
      return base;
  }
}

const to = (status: WithdrawalStatus) => ({
  target: status,
  actions: [{ type: 'record' as const, params: { status } }, { type: 'announce' as const }],
});

const withdrawalMachine = setup({
  types: {
    context: {} as WithdrawalContext,
    input: {} as WithdrawalInput,
    events: {} as WithdrawalEvent,
    emitted: {} as WithdrawalEmitted,
  },
  actions: {
    record: assign(({ event }, params: { status: WithdrawalStatus }) => patch(event, params.status)),
    announce: emit(({ context }) => ({ type: 'withdrawal.updated' as const, withdrawal: toWithdrawalView(context) })),
  },
}).createMachine({
  id: 'withdrawal',
  context: ({ input }) => ({ ...input, status: 'requested', updatedAt: input.createdAt }),
  initial: 'requested',
  entry: emit(({ context }) => ({ type: 'withdrawal.created' as const, withdrawal: toWithdrawalView(context) })),
  states: {
    // Nothing signed yet: failing here moves nothing.
    requested: { on: { 'withdrawal.sign': to('signed'), 'withdrawal.fail': to('failed') } },
    // Signed and persisted; maybe sent, maybe not: only the chain can tell (reconciliation).
    signed: { on: { 'withdrawal.broadcast': to('broadcast'), 'withdrawal.confirm': to('confirmed'), 'withdrawal.fail': to('failed') } },
    broadcast: { on: { 'withdrawal.confirm': to('confirmed'), 'withdrawal.fail': to('failed') } },
    confirmed: { type: 'final' },
    failed: { type: 'final' },
  },
});

/** Newest first under one index: the index value sorts ascending, so time is stored inverted. */
const TIME_SPAN = 10 ** 15;

export const withdrawalDefinition: MachineDefinition<WithdrawalContext, WithdrawalEvent, WithdrawalInput> = {
  type: 'withdrawal',
  version: 1,
  machine: withdrawalMachine,
  // `subjectTime` lists an account's withdrawals newest first; `walletOpen` finds a wallet's
  // withdrawals in flight (the balance they hold back); the runtime's `state` index finds every one in flight.
  indexNames: ['subjectTime', 'walletOpen'],
  indexes: (context) => ({
    subjectTime: `${context.subjectType}:${context.subjectId}|${String(TIME_SPAN - context.createdAt).padStart(15, '0')}`,
    walletOpen: `${context.walletId}|${context.status === 'confirmed' || context.status === 'failed' ? 'closed' : 'open'}`,
  }),
  stream: (context) => `${context.subjectType}:${context.subjectId}`,
};
