/**
 * Withdrawals end to end below the surfaces: the real withdrawal actors (runtime on the
 * memory store), the real Solana chain adapter over LiteSVM, real positions and cap; the
 * wallet, token directory, kill switch and step-up are small fakes the tests steer.
 */
import { randomUUID } from 'node:crypto';
import { Keypair, LAMPORTS_PER_SOL, PublicKey } from '@solana/web3.js';
import pino from 'pino';
import { beforeEach, describe, expect, it } from 'vitest';
import { InProcessEventBus } from '../../../adapters/event-bus/in-process-event-bus.adapter.js';
import { SolanaChain } from '../../../adapters/solana/solana-chain.adapter.js';
import { TRADING_RECORD_COLLECTIONS } from '../../../agents/portfolio/portfolio.records.js';
import { PositionsService } from '../../../agents/portfolio/positions.service.js';
import { TradingEvents } from '../../../agents/trading/trading-events.js';
import { WITHDRAWAL_CAP_COLLECTION, WithdrawalCap } from '../../../agents/withdrawals/withdrawal-cap.js';
import { WithdrawalReconciler } from '../../../agents/withdrawals/withdrawal-reconciler.js';
import { WITHDRAWAL_SETTINGS_COLLECTION, WithdrawalSettingsStore } from '../../../agents/withdrawals/withdrawal-settings.js';
import { derivedWithdrawalId, WithdrawalService, type WithdrawCaller } from '../../../agents/withdrawals/withdrawal.service.js';
import { withdrawalDefinition } from '../../../machines/withdrawal.machine.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { ChainPort } from '../../../kernel/ports/chain.port.js';
import type { BusEvent } from '../../../kernel/ports/event-bus.port.js';
import { NATIVE_SOL_MINT, type Chain, type TokenInfo } from '../../../kernel/ports/venue.port.js';
import { ActorRuntime } from '../../../src/runtime/actor-runtime.js';
import { DurablePublisher } from '../../../src/runtime/durable-publisher.js';
import { LiteSvmRpc } from '../../adapters/live/support/litesvm-rpc.js';
import { createMint, setTokenBalance } from '../../adapters/live/support/solana-fixtures.js';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';

const SUBJECT = { type: 'agent' as const, id: 'agt_w' };
const SOL: TokenInfo = { chain: 'solana', address: NATIVE_SOL_MINT, symbol: 'SOL', name: 'Solana', decimals: 9, native: true };

async function harness() {
  const clock = new ManualClock(Date.parse('2026-11-21T12:00:00Z'));
  const store = new MemoryStore(clock);
  const logger = pino({ level: 'silent' });
  const bus = new InProcessEventBus({ clock });
  const publisher = new DurablePublisher({ store, bus, logger });
  const runtime = new ActorRuntime({ store, clock, logger, publisher, maxLiveActors: 1000, idleMs: 60_000, maxConflictRetries: 20 });
  runtime.register(withdrawalDefinition);
  await store.init([...TRADING_RECORD_COLLECTIONS, WITHDRAWAL_SETTINGS_COLLECTION, WITHDRAWAL_CAP_COLLECTION]);
  await runtime.start();
  const rpc = new LiteSvmRpc();
  const chain = new SolanaChain({ rpc });
  /**
   * What the service sees of the chain. `killAfterPersist`: the next transfer persists its
   * signed bytes, then the process "dies": that send never happens and every later chain call
   * of this incarnation fails, until `restart()`.
   */
  const process = { dead: false, killAfterPersist: false };
  const alive = <T>(call: () => Promise<T>) => (process.dead ? Promise.reject(new Error('process killed')) : call());
  const seen: ChainPort = {
    chain: 'solana',
    nativeBalance: (address) => alive(() => chain.nativeBalance(address)),
    tokenBalance: (address, token) => alive(() => chain.tokenBalance(address, token)),
    transfer: (request) =>
      alive(() =>
        process.killAfterPersist
          ? chain.transfer({
              ...request,
              beforeBroadcast: async (signed) => {
                await request.beforeBroadcast?.(signed);
                process.killAfterPersist = false;
                process.dead = true;
                throw new Error('process killed');
              },
            })
          : chain.transfer(request),
      ),
    confirmation: (signature) => alive(() => chain.confirmation(signature)),
    rebroadcast: (signed) => alive(() => chain.rebroadcast(signed)),
    isProgram: (address) => alive(() => chain.isProgram(address)),
    health: () => chain.health(),
  };
  const owner = Keypair.generate();
  rpc.airdrop(owner.publicKey, BigInt(2 * LAMPORTS_PER_SOL));
  const mint = createMint(rpc, 6);
  setTokenBalance(rpc, owner.publicKey, mint, 100_000_000n);
  const USDX: TokenInfo = { chain: 'solana', address: mint.toBase58(), symbol: 'USDX', name: 'Test dollar', decimals: 6 };
  const events: BusEvent[] = [];
  await bus.subscribe(`agent:${SUBJECT.id}`, (event) => events.push(event));
  const state = { killed: new Set<Chain>(), stepUps: new Set<string>(), paused: false };
  const settings = new WithdrawalSettingsStore({ store, clock });
  const withdrawals = runtime.collection(withdrawalDefinition);
  const wallet = {
    walletId: 'wal_s',
    chain: 'solana' as const,
    address: owner.publicKey.toBase58(),
    custodial: true,
    kind: 'custodial' as const,
    isDefault: true,
    status: 'active' as const,
    createdAt: '',
  };
  const service = new WithdrawalService({
    withdrawals,
    chainOf: (name) => (name === 'solana' ? seen : undefined),
    wallets: {
      custodialState: async () => wallet,
      signer: async () => ({
        walletId: wallet.walletId,
        chain: 'solana',
        address: wallet.address,
        withSecretKey: (use) => use(owner.secretKey),
      }),
    },
    tokens: {
      find: async (_chain, ref) => [SOL, USDX].find((t) => t.symbol === ref || t.address === ref) ?? null,
      priceUsd: async (_chain, address) => (address === NATIVE_SOL_MINT ? 100 : 1),
      balances: async (_chain, address) => ({
        [NATIVE_SOL_MINT]: await chain.nativeBalance(address),
        ...(await chain.tokenBalances(address)),
      }),
    },
    chains: ['solana'],
    killSwitch: { isActive: async (c) => state.killed.has(c) },
    accountActive: async () => !state.paused,
    settings,
    cap: new WithdrawalCap(store),
    stepUp: {
      consume: async ({ token }) => {
        if (!token) throw AppError.forbidden('Step-up token required for manage scope');
        if (!state.stepUps.delete(token)) throw AppError.forbidden('Invalid or expired step-up token');
      },
    },
    positions: new PositionsService({ store, clock, events: new TradingEvents(publisher) }),
    clock,
    confirmation: { attempts: 2, intervalMs: 1 },
  });
  const reconciler = new WithdrawalReconciler({ service, withdrawals, clock, logger });
  const trade = (overrides: Partial<WithdrawCaller> = {}): WithdrawCaller => ({
    scope: 'trade',
    userId: 'usr_1',
    idempotencyKey: randomUUID(),
    ...overrides,
  });
  return {
    clock,
    store,
    process,
    rpc,
    chain,
    owner,
    mint,
    USDX,
    events,
    state,
    settings,
    withdrawals,
    service,
    reconciler,
    runtime,
    trade,
  };
}

type Harness = Awaited<ReturnType<typeof harness>>;

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('WithdrawalService on LiteSVM', () => {
  let h: Harness;
  beforeEach(async () => {
    h = await harness();
  });

  it('pays SOL: the recipient gains exactly the amount, the wallet loses amount plus fee; created/updated events, confirmed', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], requireStepUp: false });
    const to = Keypair.generate().publicKey.toBase58();
    const view = await h.service.withdraw(SUBJECT, { chain: 'solana', token: 'SOL', amount: String(LAMPORTS_PER_SOL / 2), to }, h.trade());
    expect(view).toMatchObject({
      chain: 'solana',
      to,
      token: NATIVE_SOL_MINT,
      amount: String(LAMPORTS_PER_SOL / 2),
      status: 'confirmed',
      txHash: h.rpc.landed[0],
    });
    expect(await h.chain.nativeBalance(to)).toBe(String(LAMPORTS_PER_SOL / 2));
    expect(await h.chain.nativeBalance(h.owner.publicKey.toBase58())).toBe(String(1.5 * LAMPORTS_PER_SOL - 5_000));
    await h.runtime.settled();
    const types = h.events
      .filter((e) => e.type.startsWith('withdrawal.'))
      .map((e) => `${e.type}:${(e.data.withdrawal as { status: string }).status}`);
    expect(types).toEqual([
      'withdrawal.created:requested',
      'withdrawal.updated:signed',
      'withdrawal.updated:broadcast',
      'withdrawal.updated:confirmed',
    ]);
  });

  it('a paused agent withdraws nothing, as it trades nothing; resumed, it pays', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], requireStepUp: false });
    const to = Keypair.generate().publicKey.toBase58();
    const request = { chain: 'solana' as const, token: 'SOL', amount: String(LAMPORTS_PER_SOL / 2), to };
    h.state.paused = true;
    await expect(h.service.withdraw(SUBJECT, request, h.trade())).rejects.toMatchObject({
      kind: 'forbidden',
      message: 'Withdrawals are refused while the agent is paused or archived',
    });
    expect(h.rpc.landed).toEqual([]);
    h.state.paused = false;
    expect((await h.service.withdraw(SUBJECT, request, h.trade())).status).toBe('confirmed');
    expect(h.rpc.landed).toHaveLength(1);
  });

  it("lists the custodial wallet's balances with their USD value", async () => {
    expect(await h.service.balances(SUBJECT)).toEqual([
      {
        chain: 'solana',
        address: h.owner.publicKey.toBase58(),
        tokens: [
          { mint: NATIVE_SOL_MINT, symbol: 'SOL', amount: String(2 * LAMPORTS_PER_SOL), decimals: 9, valueUsd: 200 },
          { mint: h.mint.toBase58(), symbol: 'USDX', amount: '100000000', decimals: 6, valueUsd: 100 },
        ],
      },
    ]);
  });

  it('pays an SPL token to a recipient without a token account; the same idempotency key never pays twice', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], requireStepUp: false });
    const to = Keypair.generate().publicKey.toBase58();
    const caller = h.trade();
    const first = await h.service.withdraw(SUBJECT, { chain: 'solana', token: 'USDX', amount: '2500000', to }, caller);
    const again = await h.service.withdraw(SUBJECT, { chain: 'solana', token: 'USDX', amount: '2500000', to }, caller);
    expect(again).toEqual(first);
    expect(h.rpc.landed).toHaveLength(1);
    expect(await h.chain.tokenBalance(to, h.mint.toBase58())).toBe('2500000');
    expect(await h.chain.tokenBalance(h.owner.publicKey.toBase58(), h.mint.toBase58())).toBe('97500000');
  });

  it("refuses in the issue's order, each check with its own words", async () => {
    const to = Keypair.generate().publicKey.toBase58();
    const ask = (over: Record<string, string> = {}, caller = h.trade()) =>
      refusal(h.service.withdraw(SUBJECT, { chain: 'solana', token: 'USDX', amount: '1000', to, ...over }, caller));
    await h.settings.put(SUBJECT, { enabled: false, allowlist: [], requireStepUp: true });
    expect((await ask()).message).toBe('Scope insufficient: required manage, got trade');
    expect((await ask({}, h.trade({ scope: 'manage' }))).message).toBe('Withdrawals are disabled for this agent');
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [to], dailyCapUsd: 10, requireStepUp: true });
    h.state.killed.add('solana');
    expect(await ask({}, h.trade({ scope: 'manage' }))).toMatchObject({
      kind: 'unavailable',
      message: 'Trading kill switch is active for chain: solana',
    });
    h.state.killed.clear();
    expect((await ask({ to: '0x1234' }, h.trade({ scope: 'manage' }))).messages).toEqual(['to is not a valid solana address']);
    const stranger = Keypair.generate().publicKey.toBase58();
    expect(await ask({ to: stranger }, h.trade({ scope: 'manage' }))).toMatchObject({
      kind: 'forbidden',
      message: `Withdrawal address not on the allowlist: ${stranger}`,
    });
    expect((await ask({ amount: '0' }, h.trade({ scope: 'manage' }))).messages).toEqual(['amount must be greater than 0']);
    expect(await ask({ amount: '100000001' }, h.trade({ scope: 'manage' }))).toMatchObject({
      kind: 'invalid',
      message: 'Insufficient balance for requested withdrawal amount',
    });
    expect(await ask({ amount: '10000001' }, h.trade({ scope: 'manage' }))).toMatchObject({
      kind: 'invalid',
      message: 'Withdrawal would exceed the daily cap of $10.00 ($0.00 used today)',
    });
    expect(await ask({}, h.trade({ scope: 'manage' }))).toMatchObject({
      kind: 'forbidden',
      message: 'Step-up token required for manage scope',
    });
    h.state.stepUps.add('sut_ok');
    const paid = await h.service.withdraw(
      SUBJECT,
      { chain: 'solana', token: 'USDX', amount: '1000', to },
      h.trade({ scope: 'manage', stepUpToken: 'sut_ok' }),
    );
    expect(paid.status).toBe('confirmed');
    // Used once: the same token again is refused.
    expect(await ask({}, h.trade({ scope: 'manage', stepUpToken: 'sut_ok' }))).toMatchObject({
      kind: 'forbidden',
      message: 'Invalid or expired step-up token',
    });
    expect(h.rpc.landed).toHaveLength(1);
  });

  it('refuses a program as recipient: a well-known id or sysvar before the chain is asked, any other executable account on chain', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], requireStepUp: false });
    const ask = (to: string) => refusal(h.service.withdraw(SUBJECT, { chain: 'solana', token: 'SOL', amount: '1000', to }, h.trade()));
    for (const to of [
      '11111111111111111111111111111111',
      'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      'SysvarRent111111111111111111111111111111111',
    ])
      expect(await ask(to)).toMatchObject({ kind: 'invalid', messages: ['to must be able to own tokens (not a program id)'] });
    const program = Keypair.generate().publicKey;
    // A builtin-style program (LiteSVM loads no program bytes it cannot run): executable all the same.
    h.rpc.setAccount(program, {
      data: new Uint8Array(0),
      lamports: 1_000_000_000n,
      owner: new PublicKey('NativeLoader1111111111111111111111111111111'),
      executable: true,
    });
    expect(await ask(program.toBase58())).toMatchObject({
      kind: 'invalid',
      messages: ['to must be able to own tokens (not a program id)'],
    });
    // An address off the ed25519 curve (a PDA) can own tokens through its program: it is paid.
    const [pda] = PublicKey.findProgramAddressSync([Buffer.from('vault')], program);
    expect(PublicKey.isOnCurve(pda.toBytes())).toBe(false);
    const paid = await h.service.withdraw(SUBJECT, { chain: 'solana', token: 'USDX', amount: '1000', to: pda.toBase58() }, h.trade());
    expect(paid).toMatchObject({ status: 'confirmed', to: pda.toBase58() });
    expect(h.rpc.landed).toHaveLength(1);
  });

  it('20 concurrent withdrawals over the balance: only what fits is sent', async () => {
    const { to, results } = await twentyAtOnce(h, '7000000');
    const paid = results.filter((r) => r.status === 'fulfilled');
    expect(paid).toHaveLength(14); // 100 / 7
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as AppError).message).toBe('Insufficient balance for requested withdrawal amount');
    expect(await h.chain.tokenBalance(to.toBase58(), h.mint.toBase58())).toBe(String(14 * 7_000_000));
    expect(h.rpc.landed).toHaveLength(14);
  });

  it('20 concurrent withdrawals over the daily cap: only what fits is reserved and sent; a failed one gives its share back', async () => {
    const { to, results } = await twentyAtOnce(h, '2000000', 25);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(12);
    for (const r of results)
      if (r.status === 'rejected') expect((r.reason as AppError).message).toMatch(/^Withdrawal would exceed the daily cap of \$25\.00/);
    expect(await h.chain.tokenBalance(to.toBase58(), h.mint.toBase58())).toBe('24000000');
  });

  it('reads the daily-cap record once per withdrawal; again only when another process moved it before the commit', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], dailyCapUsd: 10, requireStepUp: false });
    const to = Keypair.generate().publicKey;
    setTokenBalance(h.rpc, to, h.mint, 0n);
    const capId = `agent:${SUBJECT.id}|2026-11-21`;
    let reads = 0;
    /** Runs after the next read of the cap record, before the withdrawal's commit: another process's reservation. */
    let afterRead: (() => Promise<void>) | undefined;
    const get = h.store.get.bind(h.store);
    h.store.get = (async (collection: string, id: string) => {
      const doc = await get(collection, id);
      if (collection === WITHDRAWAL_CAP_COLLECTION.name) {
        reads++;
        const other = afterRead;
        afterRead = undefined;
        await other?.();
      }
      return doc;
    }) as typeof h.store.get;
    const withdraw = (amount = '3000000') =>
      h.service.withdraw(SUBJECT, { chain: 'solana', token: 'USDX', amount, to: to.toBase58() }, h.trade());
    const reserveElsewhere = (usd: number) => async () => {
      await h.store.commit([await new WithdrawalCap(h.store).reserveWrite(SUBJECT, usd, 10, '2026-11-21')]);
    };

    await withdraw();
    expect(reads).toBe(1);
    // $2 reserved elsewhere after the check: the commit's compare-and-set loses, the record is read again, $8 fits.
    reads = 0;
    afterRead = reserveElsewhere(2);
    await withdraw();
    expect(reads).toBe(3); // the check, the other process's own read, the retried commit's
    expect((await get<{ micros: number }>(WITHDRAWAL_CAP_COLLECTION.name, capId))?.data.micros).toBe(8_000_000);
    // $1 passes the check at $8 used; $1.50 more elsewhere, and the fresh read refuses it.
    afterRead = reserveElsewhere(1.5);
    expect((await refusal(withdraw('1000000'))).message).toBe('Withdrawal would exceed the daily cap of $10.00 ($9.50 used today)');
    expect(await h.chain.tokenBalance(to.toBase58(), h.mint.toBase58())).toBe('6000000');
  });

  it('after a crash between persist and broadcast: the same signed bytes are sent once on recovery; never re-signed', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], dailyCapUsd: 1000, requireStepUp: false });
    const to = Keypair.generate().publicKey.toBase58();
    h.process.killAfterPersist = true;
    const caller = h.trade();
    await expect(h.service.withdraw(SUBJECT, { chain: 'solana', token: 'SOL', amount: '1000000', to }, caller)).rejects.toThrow(
      'process killed',
    );
    const id = derivedWithdrawalId(SUBJECT, caller.idempotencyKey!);
    const persisted = (await h.withdrawals.get(id))!.context;
    expect(persisted.status).toBe('signed');
    expect(h.rpc.landed).toEqual([]);
    // Restart: recovery looks the hash up (unknown), sends the same bytes, confirms.
    h.process.dead = false;
    await h.reconciler.run({ stuckOnly: false });
    expect((await h.withdrawals.get(id))!.context.status).toBe('confirmed');
    expect(h.rpc.landed).toEqual([persisted.txSignature]);
    // The client's retry with the same key answers the confirmed withdrawal; nothing more moves.
    const retried = await h.service.withdraw(SUBJECT, { chain: 'solana', token: 'SOL', amount: '1000000', to }, caller);
    expect(retried).toMatchObject({ withdrawalId: id, status: 'confirmed', txHash: persisted.txSignature });
    expect(await h.chain.nativeBalance(to)).toBe('1000000');
  });

  it('after a crash between broadcast and confirmation: recovery finds it on chain and confirms it once', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], requireStepUp: false });
    const to = Keypair.generate().publicKey.toBase58();
    const caller = h.trade();
    // Sent, then the process died before it saw the confirmation.
    const realConfirmation = h.chain.confirmation.bind(h.chain);
    h.chain.confirmation = async () => {
      h.process.dead = true;
      throw new Error('process killed');
    };
    await expect(h.service.withdraw(SUBJECT, { chain: 'solana', token: 'SOL', amount: '2000000', to }, caller)).rejects.toThrow(
      'process killed',
    );
    h.chain.confirmation = realConfirmation;
    h.process.dead = false;
    const id = derivedWithdrawalId(SUBJECT, caller.idempotencyKey!);
    expect(['signed', 'broadcast']).toContain((await h.withdrawals.get(id))!.context.status);
    await h.reconciler.run({ stuckOnly: false });
    expect((await h.withdrawals.get(id))!.context.status).toBe('confirmed');
    expect(h.rpc.landed).toHaveLength(1);
    expect(await h.chain.nativeBalance(to)).toBe('2000000');
  });

  it('a withdrawal in flight holds its amount back until its transfer lands, then only the balance counts it (never twice)', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], requireStepUp: false });
    const to = Keypair.generate().publicKey;
    setTokenBalance(h.rpc, to, h.mint, 0n);
    const usdx = (amount: string, caller = h.trade()) =>
      h.service.withdraw(SUBJECT, { chain: 'solana', token: 'USDX', amount, to: to.toBase58() }, caller);
    // 60 of 100 USDX signed and persisted, never sent (the process died): it holds 60 back.
    h.process.killAfterPersist = true;
    const held = h.trade();
    await expect(usdx('60000000', held)).rejects.toThrow('process killed');
    h.process.dead = false;
    expect((await refusal(usdx('50000000'))).message).toBe('Insufficient balance for requested withdrawal amount');
    // Now it lands, but its actor is not `confirmed` yet (the sweep has not run): the balance
    // shows 40 left, and the 60 is not held back a second time, so 40 still fits.
    const persisted = (await h.withdrawals.get(derivedWithdrawalId(SUBJECT, held.idempotencyKey!)))!.context;
    expect(await h.chain.rebroadcast({ txSignature: persisted.txSignature!, signedTx: persisted.signedTx! })).toBe('sent');
    expect(persisted.status).toBe('signed');
    expect(await h.chain.tokenBalance(h.owner.publicKey.toBase58(), h.mint.toBase58())).toBe('40000000');
    expect((await refusal(usdx('40000001'))).message).toBe('Insufficient balance for requested withdrawal amount');
    expect(await usdx('40000000')).toMatchObject({ status: 'confirmed' });
    await h.reconciler.run({ stuckOnly: false });
    expect((await h.withdrawals.get(persisted.withdrawalId))!.context.status).toBe('confirmed');
    expect(await h.chain.tokenBalance(to.toBase58(), h.mint.toBase58())).toBe('100000000');
  });

  it('bytes that can no longer land fail the withdrawal (nothing moved) and give the cap back', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], dailyCapUsd: 100, requireStepUp: false });
    const to = Keypair.generate().publicKey.toBase58();
    h.rpc.dropNextSends = 10;
    const caller = h.trade();
    expect((await h.service.withdraw(SUBJECT, { chain: 'solana', token: 'USDX', amount: '60000000', to }, caller)).status).toBe(
      'broadcast',
    );
    h.rpc.warpSlots(1_000);
    h.rpc.dropNextSends = 0;
    await h.reconciler.run({ stuckOnly: false });
    const failed = (await h.withdrawals.get(derivedWithdrawalId(SUBJECT, caller.idempotencyKey!)))!.context;
    expect(failed).toMatchObject({ status: 'failed', reason: 'Transaction expired before it landed: nothing was sent' });
    expect(h.rpc.landed).toEqual([]);
    // Its $60 of the $100 cap came back: another $60 fits.
    await expect(new WithdrawalCap(h.store).reserveWrite(SUBJECT, 60, 100, WithdrawalCap.dayOf(h.clock.now()))).resolves.toBeDefined();
    await expect(new WithdrawalCap(h.store).reserveWrite(SUBJECT, 100.01, 100, WithdrawalCap.dayOf(h.clock.now()))).rejects.toThrow(
      /daily cap/,
    );
  });

  it('two drivers of one requested withdrawal: only the first committed signature is ever sent', async () => {
    await h.settings.put(SUBJECT, { enabled: true, allowlist: [], requireStepUp: false });
    const to = Keypair.generate().publicKey.toBase58();
    const now = h.clock.now();
    await h.withdrawals.create('wd_race', {
      withdrawalId: 'wd_race',
      subjectType: 'agent',
      subjectId: SUBJECT.id,
      chain: 'solana',
      walletId: 'wal_s',
      from: h.owner.publicKey.toBase58(),
      to,
      token: NATIVE_SOL_MINT,
      symbol: 'SOL',
      decimals: 9,
      amount: '3000000',
      valueUsd: 0.3,
      createdAt: now,
    });
    const requested = (await h.withdrawals.get('wd_race'))!.context;
    const outcomes = await Promise.allSettled([
      h.service.drive(requested),
      h.service.drive(requested),
      h.reconciler.run({ stuckOnly: false }),
    ]);
    expect(outcomes.every((o) => o.status === 'fulfilled')).toBe(true);
    expect(h.rpc.landed).toHaveLength(1);
    expect(await h.chain.nativeBalance(to)).toBe('3000000');
    expect((await h.withdrawals.get('wd_race'))!.context.status).toBe('confirmed');
  });
});

/** 20 withdrawals of `amount` USDX at once to a new recipient holding none, under a daily cap when given. */
async function twentyAtOnce(h: Harness, amount: string, dailyCapUsd?: number) {
  await h.settings.put(SUBJECT, {
    enabled: true,
    allowlist: [],
    requireStepUp: false,
    ...(dailyCapUsd === undefined ? {} : { dailyCapUsd }),
  });
  const to = Keypair.generate().publicKey;
  setTokenBalance(h.rpc, to, h.mint, 0n);
  const results = await Promise.allSettled(
    Array.from({ length: 20 }, () => h.service.withdraw(SUBJECT, { chain: 'solana', token: 'USDX', amount, to: to.toBase58() }, h.trade())),
  );
  return { to, results };
}
