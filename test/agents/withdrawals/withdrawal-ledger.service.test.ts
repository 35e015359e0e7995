/**
 * Withdrawals on a local ledger (the paper chain): the transfer's writes commit with the
 * withdrawal's `confirmed` (and the position it books), so a crash leaves both or neither.
 * Each "process" is a runtime, a paper chain and a service over one shared memory store (the
 * disk); a process dies at a commit of the transfer (before or after it lands) and every call
 * it makes afterwards fails, as after a SIGKILL.
 */
import { randomUUID } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { InProcessEventBus } from '../../../adapters/event-bus/in-process-event-bus.adapter.js';
import { PaperChain } from '../../../adapters/paper/paper-chain.adapter.js';
import { PAPER_COLLECTIONS, PaperLedger } from '../../../adapters/paper/paper-ledger.js';
import { TRADING_RECORD_COLLECTIONS } from '../../../agents/portfolio/portfolio.records.js';
import { PositionsService } from '../../../agents/portfolio/positions.service.js';
import { TradingEvents } from '../../../agents/trading/trading-events.js';
import { WITHDRAWAL_CAP_COLLECTION, WithdrawalCap } from '../../../agents/withdrawals/withdrawal-cap.js';
import { WithdrawalReconciler } from '../../../agents/withdrawals/withdrawal-reconciler.js';
import { WITHDRAWAL_SETTINGS_COLLECTION, WithdrawalSettingsStore } from '../../../agents/withdrawals/withdrawal-settings.js';
import { derivedWithdrawalId, WithdrawalService, type WithdrawCaller } from '../../../agents/withdrawals/withdrawal.service.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ChainPort } from '../../../kernel/ports/chain.port.js';
import type { BusEvent } from '../../../kernel/ports/event-bus.port.js';
import type { CommitWrite, StorePort } from '../../../kernel/ports/store.port.js';
import type { TokenInfo } from '../../../kernel/ports/venue.port.js';
import { withdrawalDefinition } from '../../../machines/withdrawal.machine.js';
import { ActorRuntime } from '../../../src/runtime/actor-runtime.js';
import { DurablePublisher } from '../../../src/runtime/durable-publisher.js';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';

const SUBJECT = { type: 'agent' as const, id: 'agt_paper' };
const USDC: TokenInfo = {
  chain: 'solana',
  address: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  symbol: 'USDC',
  name: 'USD Coin',
  decimals: 6,
};
const FUNDS = 100_000_000n;

type DieAt = 'before-commit' | 'after-commit';

/** Whether a commit applies a paper transfer (the one a process may die at). */
const movesFunds = (writes: CommitWrite[]) => writes.some((write) => write.collection === 'paper.transfers');

async function world() {
  const clock = new ManualClock(Date.parse('2026-11-21T12:00:00Z'));
  const disk = new MemoryStore(clock);
  await disk.init([...TRADING_RECORD_COLLECTIONS, WITHDRAWAL_SETTINGS_COLLECTION, WITHDRAWAL_CAP_COLLECTION, ...PAPER_COLLECTIONS]);
  const ledger = new PaperLedger({ store: disk });
  const owner = Keypair.generate().publicKey.toBase58();
  await ledger.credit('solana', owner, USDC.address, FUNDS);
  const settings = new WithdrawalSettingsStore({ store: disk, clock });
  await settings.put(SUBJECT, { enabled: true, allowlist: [], dailyCapUsd: 1000, requireStepUp: false });
  const logger = pino({ level: 'silent' });

  /**
   * One process over the shared store. `dieAt`: at its next commit that moves funds, it dies
   * before or after that commit lands. `beforeTransferCommit`: runs before each such commit
   * (a barrier that lets two processes compute their writes before either commits).
   * `afterBalanceRead`: runs after each balance read of the ledger (another writer moving it).
   */
  async function start(hooks: { dieAt?: DieAt; beforeTransferCommit?: () => Promise<void> } = {}) {
    const state = { dead: false, dieAt: hooks.dieAt, afterBalanceRead: undefined as (() => Promise<void>) | undefined };
    const killed = () => Promise.reject(new Error('process killed'));
    const store = new Proxy(disk, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (typeof value !== 'function') return value;
        const method = (value as (...args: unknown[]) => Promise<unknown>).bind(target);
        if (name !== 'commit') return (...args: unknown[]) => (state.dead ? killed() : method(...args));
        return async (writes: CommitWrite[]) => {
          if (state.dead) return killed();
          if (!movesFunds(writes)) return method(writes);
          await hooks.beforeTransferCommit?.();
          const dieAt = state.dieAt;
          state.dieAt = undefined;
          if (dieAt === 'before-commit') state.dead = true;
          if (state.dead) return killed();
          const committed = await method(writes);
          if (dieAt === 'after-commit') {
            state.dead = true;
            return killed();
          }
          return committed;
        };
      },
    }) as StorePort;
    const bus = new InProcessEventBus({ clock });
    const events: BusEvent[] = [];
    await bus.subscribe(`agent:${SUBJECT.id}`, (event) => events.push(event));
    const publisher = new DurablePublisher({ store, bus, logger });
    const runtime = new ActorRuntime({ store, clock, logger, publisher, maxLiveActors: 1000, idleMs: 60_000, maxConflictRetries: 20 });
    runtime.register(withdrawalDefinition);
    await runtime.start();
    const paper = new PaperChain({ chain: 'solana', store, clock });
    const chain: ChainPort = Object.assign(Object.create(paper) as PaperChain, {
      tokenBalance: async (address: string, token: string): Promise<string> => {
        const read = await paper.tokenBalance(address, token);
        const other = state.afterBalanceRead;
        state.afterBalanceRead = undefined;
        await other?.();
        return read;
      },
    });
    const wallet = {
      walletId: 'wal_paper',
      chain: 'solana' as const,
      address: owner,
      custodial: true,
      kind: 'custodial' as const,
      isDefault: true,
      status: 'active' as const,
      createdAt: '',
    };
    const withdrawals = runtime.collection(withdrawalDefinition);
    const service = new WithdrawalService({
      withdrawals,
      chainOf: (name) => (name === 'solana' ? chain : undefined),
      wallets: {
        custodialState: async () => wallet,
        signer: async () => ({
          walletId: wallet.walletId,
          chain: 'solana',
          address: owner,
          withSecretKey: () => Promise.reject(new Error('paper never signs with a key')),
        }),
      },
      tokens: {
        find: async (_chain, ref) => (ref === USDC.symbol || ref === USDC.address ? USDC : null),
        priceUsd: async () => 1,
        balances: async (_chain, address) => ledger.balances('solana', address),
      },
      chains: ['solana'],
      killSwitch: { isActive: async () => false },
      accountActive: async () => true,
      settings: new WithdrawalSettingsStore({ store, clock }),
      cap: new WithdrawalCap(store),
      stepUp: { consume: async () => undefined },
      positions: new PositionsService({ store, clock, events: new TradingEvents(publisher) }),
      clock,
      confirmation: { attempts: 2, intervalMs: 1 },
    });
    const reconciler = new WithdrawalReconciler({ service, withdrawals, clock, logger });
    return { state, runtime, withdrawals, service, reconciler, events };
  }

  /** Counts the reads of `address`'s balance document from now on. */
  const countBalanceReads = (address: string) => {
    let reads = 0;
    const get = disk.get.bind(disk);
    disk.get = ((collection: string, id: string) => {
      if (collection === 'paper.balances' && id === `solana:${address}`) reads++;
      return get(collection, id);
    }) as typeof disk.get;
    return () => reads;
  };
  const balanceOf = async (address: string) => (await ledger.balances('solana', address))[USDC.address] ?? '0';
  const capUsed = async () =>
    (await disk.get<{ micros: number }>(WITHDRAWAL_CAP_COLLECTION.name, `agent:${SUBJECT.id}|2026-11-21`))?.data.micros;
  return { clock, disk, ledger, owner, start, balanceOf, capUsed, countBalanceReads };
}

/** `digest` stands for what the call asked (the surfaces derive it from the request). */
const caller = (key = randomUUID(), digest = 'same'): WithdrawCaller => ({
  scope: 'trade',
  userId: 'usr_1',
  idempotencyKey: key,
  requestDigest: digest,
});
const request = (to: string, amount: string) => ({ chain: 'solana' as const, token: 'USDC', amount, to });

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('WithdrawalService on a local ledger (paper): the transfer commits with the withdrawal', () => {
  let w: Awaited<ReturnType<typeof world>>;
  let to: string;
  beforeEach(async () => {
    w = await world();
    to = Keypair.generate().publicKey.toBase58();
  });

  it('pays once, in the commit that takes the withdrawal from requested through signed and broadcast to confirmed', async () => {
    const p = await w.start();
    const commits: string[][] = [];
    const commit = w.disk.commit.bind(w.disk);
    w.disk.commit = (async (writes: CommitWrite[]) => {
      commits.push([...new Set(writes.map((write) => write.collection))].sort());
      return commit(writes);
    }) as typeof w.disk.commit;
    const senderReads = w.countBalanceReads(w.owner);
    const view = await p.service.withdraw(SUBJECT, request(to, '1000000'), caller());
    // The check's read of the sender's balance is the one the commit starts from.
    expect(senderReads()).toBe(1);
    expect(view).toMatchObject({ status: 'confirmed', amount: '1000000' });
    expect(await w.balanceOf(w.owner)).toBe(String(FUNDS - 1_000_000n));
    expect(await w.balanceOf(to)).toBe('1000000');
    expect(await w.ledger.readTransfer(view.txHash!)).toMatchObject({ from: w.owner, to, amount: '1000000' });
    // The transfer is in the withdrawal's own commit, with the position it books: none moves funds apart from it.
    expect(commits.filter((collections) => collections.includes('paper.transfers'))).toEqual([
      ['actors.withdrawal', 'paper.balances', 'paper.transfers', 'trading.positions'],
    ]);
    await p.runtime.settled();
    expect(
      p.events
        .filter((e) => e.type.startsWith('withdrawal.'))
        .map((e) => `${e.type}:${(e.data as { withdrawal: { status: string } }).withdrawal.status}`),
    ).toEqual([
      'withdrawal.created:requested',
      'withdrawal.updated:signed',
      'withdrawal.updated:broadcast',
      'withdrawal.updated:confirmed',
    ]);
    // One version for the three steps: one journal entry, keeping the steps it continued with.
    const journal = await w.disk.readJournal('actors.withdrawal', view.withdrawalId, { limit: 10 });
    expect(journal.map((entry) => ({ seq: entry.seq, state: entry.state, event: entry.event }))).toEqual([
      { seq: 1, state: 'requested', event: expect.objectContaining({ type: 'xstate.init' }) },
      {
        seq: 2,
        state: 'confirmed',
        event: expect.objectContaining({
          type: 'withdrawal.sign',
          txSignature: view.txHash,
          continuedWith: [
            expect.objectContaining({ type: 'withdrawal.broadcast' }),
            expect.objectContaining({ type: 'withdrawal.confirm' }),
          ],
        }),
      },
    ]);
    expect((await p.withdrawals.get(view.withdrawalId))?.version).toBe(2);
  });

  it('a crash before the commit leaves it requested with nothing moved; recovery pays it once', async () => {
    const dying = await w.start({ dieAt: 'before-commit' });
    const key = randomUUID();
    await expect(dying.service.withdraw(SUBJECT, request(to, '2000000'), caller(key))).rejects.toThrow('process killed');
    const id = derivedWithdrawalId(SUBJECT, key);
    expect((await w.disk.get<{ snapshot: unknown }>('actors.withdrawal', id))?.data).toBeDefined();
    const restarted = await w.start();
    expect((await restarted.withdrawals.get(id))?.context.status).toBe('requested');
    expect(await w.balanceOf(w.owner)).toBe(String(FUNDS));

    await restarted.reconciler.run({ stuckOnly: false });
    const settled = (await restarted.withdrawals.get(id))!.context;
    expect(settled.status).toBe('confirmed');
    expect(await w.ledger.readTransfer(settled.txSignature!)).toMatchObject({ amount: '2000000' });
    expect(await w.balanceOf(to)).toBe('2000000');
    // The client's retry answers it; nothing more moves.
    expect(await restarted.service.withdraw(SUBJECT, request(to, '2000000'), caller(key))).toMatchObject({
      withdrawalId: id,
      status: 'confirmed',
    });
    expect(await w.balanceOf(to)).toBe('2000000');
    expect(await w.capUsed()).toBe(2_000_000);
  });

  it('a crash after the commit: the retry of its key answers the confirmed withdrawal, though the balance it spent refuses a new one', async () => {
    const dying = await w.start({ dieAt: 'after-commit' });
    const key = randomUUID();
    const all = String(FUNDS);
    await expect(dying.service.withdraw(SUBJECT, request(to, all), caller(key))).rejects.toThrow('process killed');
    const restarted = await w.start();
    await restarted.reconciler.run({ stuckOnly: false });
    const id = derivedWithdrawalId(SUBJECT, key);
    expect(await restarted.service.withdraw(SUBJECT, request(to, all), caller(key))).toMatchObject({
      withdrawalId: id,
      status: 'confirmed',
    });
    expect(await w.balanceOf(w.owner)).toBe('0');
    expect(await w.balanceOf(to)).toBe(all);
    expect((await refusal(restarted.service.withdraw(SUBJECT, request(to, all), caller()))).message).toBe(
      'Insufficient balance for requested withdrawal amount',
    );
    // The key with another request is refused as such, even where a check would refuse it too.
    expect((await refusal(restarted.service.withdraw(SUBJECT, request(to, '1'), caller(key, 'other')))).code).toBe('IDEMPOTENCY_MISMATCH');
    expect(await w.capUsed()).toBe(Number(FUNDS));
  });

  it('two processes sending one requested withdrawal at once: one transfer; the other process answers it', async () => {
    const dying = await w.start({ dieAt: 'before-commit' });
    const key = randomUUID();
    await expect(dying.service.withdraw(SUBJECT, request(to, '3000000'), caller(key))).rejects.toThrow('process killed');
    // Both sign their own bytes and compute their writes before either commits.
    let arrived = 0;
    let release!: () => void;
    const bothReady = new Promise<void>((resolve) => {
      release = resolve;
    });
    const barrier = async () => {
      if (++arrived === 2) release();
      await bothReady;
    };
    const [a, b] = await Promise.all([w.start({ beforeTransferCommit: barrier }), w.start({ beforeTransferCommit: barrier })]);
    await Promise.all([a.reconciler.run({ stuckOnly: false }), b.reconciler.run({ stuckOnly: false })]);
    expect(arrived).toBe(2);
    const id = derivedWithdrawalId(SUBJECT, key);
    const [seenByA, seenByB] = await Promise.all([a.withdrawals.get(id), b.withdrawals.get(id)]);
    expect(seenByA?.context).toMatchObject({ status: 'confirmed', txSignature: seenByB?.context.txSignature });
    expect(await w.balanceOf(w.owner)).toBe(String(FUNDS - 3_000_000n));
    expect(await w.balanceOf(to)).toBe('3000000');
    expect(await w.ledger.readTransfer(seenByA!.context.txSignature!)).toMatchObject({ amount: '3000000' });
  });

  it('a balance moved between the check and the commit: the commit is computed again from fresh reads', async () => {
    const p = await w.start();
    p.state.afterBalanceRead = async () => {
      await w.ledger.credit('solana', w.owner, USDC.address, 5n);
    };
    const senderReads = w.countBalanceReads(w.owner);
    await p.service.withdraw(SUBJECT, request(to, '4000000'), caller());
    // The check's read (the first commit lost on it), the credit's own, then a fresh one for the retry: never the stale one again.
    expect(senderReads()).toBe(3);
    expect(await w.balanceOf(w.owner)).toBe(String(FUNDS + 5n - 4_000_000n));
    expect(await w.balanceOf(to)).toBe('4000000');
  });

  it('an overdraft found at the commit fails the withdrawal: nothing moved, its share of the cap given back', async () => {
    const p = await w.start();
    // Spent elsewhere after the check read it.
    p.state.afterBalanceRead = async () => {
      await w.ledger.credit('solana', w.owner, USDC.address, -FUNDS + 1n);
    };
    const key = randomUUID();
    const refused = await refusal(p.service.withdraw(SUBJECT, request(to, '2000000'), caller(key)));
    expect(refused).toMatchObject({ code: 'INSUFFICIENT_BALANCE', message: 'Insufficient balance for requested withdrawal amount' });
    expect((await p.withdrawals.get(derivedWithdrawalId(SUBJECT, key)))?.context.status).toBe('failed');
    expect(await w.balanceOf(w.owner)).toBe('1');
    expect(await w.balanceOf(to)).toBe('0');
    expect(await w.capUsed()).toBe(0);
  });
});
