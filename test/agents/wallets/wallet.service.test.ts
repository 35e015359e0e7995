import pino from 'pino';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { InProcessEventBus } from '../../../adapters/event-bus/in-process-event-bus.adapter.js';
import { CUSTODIAL_KEYS_PURPOSE, LocalKeyCustody } from '../../../adapters/key-custody/local-key-custody.adapter.js';
import { LmdbStore } from '../../../adapters/lmdb/lmdb-store.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { TRADING_RECORD_COLLECTIONS, TRADING_RECORDS } from '../../../agents/portfolio/portfolio.records.js';
import { TradingEvents } from '../../../agents/trading/trading-events.js';
import { DurablePublisher } from '../../../src/runtime/durable-publisher.js';
import { WALLET_COLLECTIONS } from '../../../agents/wallets/wallet.records.js';
import { WalletService } from '../../../agents/wallets/wallet.service.js';
import { SecretBox } from '../../../kernel/crypto/secret-box.js';
import type { BusEvent } from '../../../kernel/ports/event-bus.port.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';

const alice = { type: 'agent', id: 'a1' } as const;
const bob = { type: 'agent', id: 'a2' } as const;
const EXTERNAL = '0x52908400098527886E0F7030069857D2E4169EE7';
const dirs: string[] = [];
const opened: StorePort[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((store) => store.close()));
  await Promise.all(dirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The embedded store for real CAS under concurrency, the memory store as the fast baseline. */
const stores: [string, (clock: ManualClock) => Promise<StorePort>][] = [
  ['MemoryStore', async (clock) => new MemoryStore(clock)],
  [
    'LmdbStore',
    async (clock) => {
      const dir = await mkdtemp(join(tmpdir(), 'wallets-'));
      dirs.push(dir);
      return new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 });
    },
  ],
];

describe.each(stores)('WalletService over %s', (_name, openStore) => {
  async function setup() {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    const store = await openStore(clock);
    opened.push(store);
    await store.init([...TRADING_RECORD_COLLECTIONS, ...WALLET_COLLECTIONS]);
    const bus = new InProcessEventBus({ clock });
    const events: BusEvent[] = [];
    await bus.subscribe('agent:a1', (event) => void events.push(event));
    const custody = new LocalKeyCustody(new SecretBox('a-master-secret-of-at-least-32-characters!', CUSTODIAL_KEYS_PURPOSE));
    const publisher = new DurablePublisher({ store, bus, logger: pino({ level: 'silent' }) });
    const wallets = new WalletService({ store, custody, clock, events: new TradingEvents(publisher) });
    const walletDocs = async () => (await store.list<Record<string, unknown>>(TRADING_RECORDS.wallets, { limit: 500 })).items;
    return { clock, store, wallets, events, walletDocs, publisher };
  }

  it('ensure creates a custodial wallet once and returns it after', async () => {
    const { wallets, clock } = await setup();
    expect(await wallets.custodialState(alice, 'solana')).toBeNull();
    const first = await wallets.ensureCustodial(alice, 'solana');
    expect(first).toMatchObject({
      chain: 'solana',
      custodial: true,
      kind: 'custodial',
      status: 'active',
      isDefault: true,
      createdAt: '2026-03-01T12:00:00.000Z',
    });
    expect(bs58.decode(first.address)).toHaveLength(32);
    await clock.advance(1000);
    expect(await wallets.ensureCustodial(alice, 'solana')).toEqual(first);
    expect(await wallets.custodialState(alice, 'solana')).toEqual(first);
    // Another chain family and another account each get their own.
    const evm = await wallets.ensureCustodial(alice, 'evm');
    expect(evm.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect((await wallets.ensureCustodial(bob, 'solana')).walletId).not.toBe(first.walletId);
  });

  it('20 concurrent ensure calls create exactly one wallet', async () => {
    const { wallets, walletDocs } = await setup();
    const results = await Promise.all(Array.from({ length: 20 }, () => wallets.ensureCustodial(alice, 'solana')));
    expect(new Set(results.map((wallet) => wallet.walletId)).size).toBe(1);
    expect(await walletDocs()).toHaveLength(1);
  });

  it('views and events never carry the sealed key; the record keeps what the portfolio reader projects', async () => {
    const { wallets, events, walletDocs, publisher } = await setup();
    const wallet = await wallets.ensureCustodial(alice, 'solana');
    await publisher.drained(); // events go out once durable, after the call returned
    expect(Object.keys(wallet).sort()).toEqual(['address', 'chain', 'createdAt', 'custodial', 'isDefault', 'kind', 'status', 'walletId']);
    const [doc] = await walletDocs();
    expect(doc!.data).toMatchObject({
      walletId: wallet.walletId,
      chain: 'solana',
      address: wallet.address,
      custodial: true,
      subject: 'agent:a1',
      sealedKey: expect.stringMatching(/^v1\./),
    });
    expect(doc!.indexes).toEqual({ subject: 'agent:a1' });
    expect(events.map((event) => [event.type, event.data])).toEqual([
      [
        'wallet.updated',
        { walletId: wallet.walletId, chain: 'solana', address: wallet.address, kind: 'custodial', status: 'active', isDefault: true },
      ],
    ]);
  });

  it('the first wallet of a family is the default; setDefault moves it; exactly one default at a time', async () => {
    const { wallets, clock } = await setup();
    const external = await wallets.addExternal(alice, { address: EXTERNAL, label: ' cold ' });
    expect(external).toMatchObject({ kind: 'external', custodial: false, isDefault: true, label: 'cold' });
    const custodial = await wallets.createCustodial(alice, 'evm');
    const delegate = await wallets.createDelegate(alice, 'evm', { spendingCapUsd: 50 });
    expect([custodial.isDefault, delegate.isDefault]).toEqual([false, false]);
    expect(await wallets.setDefault(alice, 'evm', delegate.walletId)).toMatchObject({ walletId: delegate.walletId, isDefault: true });
    await clock.advance(1);
    const list = await wallets.list(alice, 'evm');
    expect(list.filter((w) => w.isDefault).map((w) => w.walletId)).toEqual([delegate.walletId]);
    // Solana is its own family.
    expect((await wallets.ensureCustodial(alice, 'solana')).isDefault).toBe(true);
    await expect(wallets.setDefault(alice, 'evm', 'wal_unknown')).rejects.toMatchObject({ kind: 'not_found', message: 'Wallet not found' });
    await expect(wallets.setDefault(bob, 'evm', custodial.walletId)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('a wallet created later in the same millisecond does not take the default over', async () => {
    const { wallets } = await setup();
    const created = [];
    for (let i = 0; i < 12; i++) created.push(await wallets.createCustodial(alice, 'evm'));
    const defaults = (await wallets.list(alice, 'evm')).filter((w) => w.isDefault);
    expect(defaults.map((w) => w.walletId)).toEqual([created[0]!.walletId]);
  });

  it('revoking the default hands it to the oldest active wallet, and the last one leaves none', async () => {
    const { wallets, clock, events, publisher } = await setup();
    const first = await wallets.createCustodial(alice, 'evm');
    await clock.advance(1000);
    const second = await wallets.addExternal(alice, { address: EXTERNAL });
    await clock.advance(1000);
    const third = await wallets.createCustodial(alice, 'evm');
    await wallets.setDefault(alice, 'evm', third.walletId);
    await publisher.drained();
    events.length = 0;
    expect(await wallets.revoke(alice, 'evm', third.walletId)).toMatchObject({ status: 'revoked', isDefault: false });
    await publisher.drained(); // events go out once durable, after the call returned
    expect(events.map((event) => [event.data.walletId, event.data.status, event.data.isDefault])).toEqual([
      [third.walletId, 'revoked', false],
      [first.walletId, 'active', true],
    ]);
    // Revoking twice changes nothing.
    expect(await wallets.revoke(alice, 'evm', third.walletId)).toMatchObject({ status: 'revoked' });
    await wallets.revoke(alice, 'evm', first.walletId);
    expect((await wallets.list(alice, 'evm')).find((w) => w.isDefault)?.walletId).toBe(second.walletId);
    await wallets.revoke(alice, 'evm', second.walletId);
    expect((await wallets.list(alice, 'evm')).some((w) => w.isDefault)).toBe(false);
    await expect(wallets.revoke(alice, 'evm', 'wal_nope')).rejects.toMatchObject({ kind: 'not_found', message: 'Wallet not found' });
    await expect(wallets.revoke(bob, 'evm', first.walletId)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('ensure after its custodial wallet was revoked creates a new one', async () => {
    const { wallets } = await setup();
    const first = await wallets.ensureCustodial(alice, 'evm');
    await wallets.revoke(alice, 'evm', first.walletId);
    const second = await wallets.ensureCustodial(alice, 'evm');
    expect(second.walletId).not.toBe(first.walletId);
    expect(await wallets.ensureCustodial(alice, 'evm')).toEqual(second);
  });

  it('an address is connected once per account, also under concurrency, and again after revocation', async () => {
    const { wallets } = await setup();
    const attempts = await Promise.allSettled(Array.from({ length: 8 }, () => wallets.addExternal(alice, { address: EXTERNAL })));
    const added = attempts.filter((a) => a.status === 'fulfilled');
    expect(added).toHaveLength(1);
    for (const refused of attempts.filter((a) => a.status === 'rejected')) {
      expect(refused.reason).toMatchObject({ kind: 'conflict', message: 'Wallet already connected' });
    }
    await expect(wallets.addExternal(alice, { address: EXTERNAL.toLowerCase() })).rejects.toMatchObject({ kind: 'conflict' });
    // Another account may connect the same address.
    await expect(wallets.addExternal(bob, { address: EXTERNAL })).resolves.toMatchObject({ address: EXTERNAL });
    await wallets.revoke(alice, 'evm', (added[0] as PromiseFulfilledResult<{ walletId: string }>).value.walletId);
    await expect(wallets.addExternal(alice, { address: EXTERNAL })).resolves.toMatchObject({ status: 'active' });
    await expect(wallets.addExternal(alice, { address: 'not-an-address' })).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('signs with a custodial key; external, revoked and foreign wallets have no signer', async () => {
    const { wallets } = await setup();
    const sol = await wallets.ensureCustodial(alice, 'solana');
    const signer = await wallets.signer(alice, sol.walletId);
    expect(signer).toMatchObject({ walletId: sol.walletId, chain: 'solana', address: sol.address });
    const message = new TextEncoder().encode('swap');
    const signature = await signer.withSecretKey(async (secret) => nacl.sign.detached(message, secret));
    expect(nacl.sign.detached.verify(message, signature, bs58.decode(sol.address))).toBe(true);

    const external = await wallets.addExternal(alice, { address: EXTERNAL });
    await expect(wallets.signer(alice, external.walletId)).rejects.toMatchObject({ kind: 'not_found', message: 'Wallet not found' });
    await expect(wallets.signer(bob, sol.walletId)).rejects.toMatchObject({ kind: 'not_found' });
    // Revoked between handing out the signer and signing: the signature is refused.
    await wallets.revoke(alice, 'solana', sol.walletId);
    await expect(signer.withSecretKey(async () => 'signed')).rejects.toMatchObject({ kind: 'not_found' });
    await expect(wallets.signer(alice, sol.walletId)).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('signingWallet: a named wallet, else the default when it signs, else a custodial one, else none', async () => {
    const { wallets } = await setup();
    expect(await wallets.signingWallet(alice, 'evm')).toBeNull();
    await expect(wallets.requireSigningWallet(alice, 'evm')).rejects.toMatchObject({
      kind: 'invalid',
      code: 'WALLET_REQUIRED',
      message: 'Custodial wallet required for this operation',
    });
    const external = await wallets.addExternal(alice, { address: EXTERNAL });
    expect(await wallets.signingWallet(alice, 'evm')).toBeNull();
    const delegate = await wallets.createDelegate(alice, 'evm', { spendingCapUsd: 10 });
    const custodial = await wallets.createCustodial(alice, 'evm');
    expect((await wallets.signingWallet(alice, 'evm'))?.walletId).toBe(custodial.walletId);
    expect((await wallets.signingWallet(alice, 'evm', delegate.walletId))?.walletId).toBe(delegate.walletId);
    expect(await wallets.signingWallet(alice, 'evm', external.walletId)).toBeNull();
    // A wallet that does not exist is 404, as on every wallet route (one that cannot sign is null: "required").
    await expect(wallets.signingWallet(alice, 'evm', 'wal_unknown')).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Wallet not found',
    });
    await wallets.setDefault(alice, 'evm', delegate.walletId);
    expect((await wallets.signingWallet(alice, 'evm'))?.walletId).toBe(delegate.walletId);
    expect(await wallets.signingWallet(alice, 'solana')).toBeNull();
  });

  it('a guarded creation re-run with the same request key answers with the first wallet', async () => {
    const { wallets, walletDocs } = await setup();
    const key = '3f1c2a8e-5b7d-4c1e-9f0a-2b3c4d5e6f70';
    const first = await wallets.createCustodial(alice, 'evm', { requestKey: key });
    expect(await wallets.createCustodial(alice, 'evm', { requestKey: key })).toEqual(first);
    const delegate = await wallets.createDelegate(alice, 'evm', { spendingCapUsd: 5, requestKey: key });
    expect(delegate.walletId).not.toBe(first.walletId);
    expect(await walletDocs()).toHaveLength(2);
  });

  it('a delegate never spends past its cap, whatever the concurrency', async () => {
    const { wallets } = await setup();
    const delegate = await wallets.createDelegate(alice, 'evm', { spendingCapUsd: 100, label: 'bot budget' });
    expect(delegate).toMatchObject({ kind: 'delegate', custodial: true, spendingCapUsd: 100, spentUsd: 0, label: 'bot budget' });
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => wallets.reserveSpend(alice, delegate.walletId, 10)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    for (const refused of results.filter((r) => r.status === 'rejected')) {
      expect(refused.reason).toMatchObject({ kind: 'invalid', message: `Spending cap exceeded for wallet ${delegate.walletId}` });
    }
    expect((await wallets.list(alice, 'evm'))[0]).toMatchObject({ spentUsd: 100 });
    await wallets.releaseSpend(alice, delegate.walletId, 25);
    await wallets.reserveSpend(alice, delegate.walletId, 25);
    await expect(wallets.reserveSpend(alice, delegate.walletId, 0.000001)).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('cap arithmetic is exact to the micro-dollar, and other kinds are not capped', async () => {
    const { wallets } = await setup();
    const delegate = await wallets.createDelegate(alice, 'evm', { spendingCapUsd: 0.3 });
    await wallets.reserveSpend(alice, delegate.walletId, 0.1);
    await wallets.reserveSpend(alice, delegate.walletId, 0.2);
    expect((await wallets.list(alice, 'evm'))[0]!.spentUsd).toBe(0.3);
    await expect(wallets.reserveSpend(alice, delegate.walletId, 0.000001)).rejects.toMatchObject({ kind: 'invalid' });
    await expect(wallets.reserveSpend(alice, delegate.walletId, -1)).rejects.toMatchObject({ kind: 'invalid' });

    const custodial = await wallets.createCustodial(alice, 'evm');
    await wallets.reserveSpend(alice, custodial.walletId, 1e9);
    expect((await wallets.list(alice, 'evm')).find((w) => w.walletId === custodial.walletId)).not.toHaveProperty('spentUsd');
    await expect(wallets.reserveSpend(alice, 'wal_nope', 1)).rejects.toMatchObject({ kind: 'not_found' });
    await wallets.revoke(alice, 'evm', delegate.walletId);
    await expect(wallets.reserveSpend(alice, delegate.walletId, 0.1)).rejects.toMatchObject({ kind: 'not_found' });
  });
});

describe('WalletService: one record under contention, two LMDB handles on one directory', () => {
  it('30 concurrent spends and 30 concurrent default changes each land exactly once, with one event per spend', async () => {
    const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
    const dir = await mkdtemp(join(tmpdir(), 'wallets-contention-'));
    dirs.push(dir);
    const handles = [
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
      new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    ];
    opened.push(...handles);
    for (const store of handles) await store.init([...TRADING_RECORD_COLLECTIONS, ...WALLET_COLLECTIONS]);
    const bus = new InProcessEventBus({ clock });
    const events: BusEvent[] = [];
    await bus.subscribe('agent:a1', (event) => void events.push(event));
    const custody = new LocalKeyCustody(new SecretBox('a-master-secret-of-at-least-32-characters!', CUSTODIAL_KEYS_PURPOSE));
    const publishers = handles.map((store) => new DurablePublisher({ store, bus, logger: pino({ level: 'silent' }) }));
    const services = handles.map((store, i) => new WalletService({ store, custody, clock, events: new TradingEvents(publishers[i]!) }));
    const [a, b] = services as [WalletService, WalletService];
    const delegate = await a.createDelegate(alice, 'evm', { spendingCapUsd: 1000 });
    const other = await a.createCustodial(alice, 'evm');
    await Promise.all(publishers.map((p) => p.drained()));
    events.length = 0;

    await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).reserveSpend(alice, delegate.walletId, 1)),
      ...Array.from({ length: 30 }, (_, i) => (i % 2 ? b : a).setDefault(alice, 'evm', i % 3 ? delegate.walletId : other.walletId)),
    ]);
    await Promise.all(publishers.map((p) => p.drained()));

    // Created at version 1, then exactly one write per spend: none lost, none doubled.
    expect(await handles[1]!.get(TRADING_RECORDS.wallets, delegate.walletId)).toMatchObject({ version: 31, data: { spentUsd: 30 } });
    const spends = events
      .filter((event) => event.data.walletId === delegate.walletId && event.data.spentUsd !== undefined)
      .map((event) => event.data.spentUsd as number);
    // Each spend announced its own total (default changes announce the delegate too, with what they read).
    expect([...new Set(spends)].filter((usd) => usd > 0).sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect((await b.list(alice, 'evm')).filter((w) => w.isDefault)).toHaveLength(1);
  });
});
