import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { LmdbStore } from '../../../adapters/lmdb/lmdb-store.adapter.js';
import {
  APPROVAL_COLLECTIONS,
  APPROVALS_COLLECTION,
  TokenApprovalsService,
  type ApprovalWallets,
} from '../../../agents/wallets/token-approvals.service.js';
import type { WalletView } from '../../../agents/wallets/wallet.types.js';

const alice = { type: 'agent', id: 'a1' } as const;
const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const SPENDER = '0x52908400098527886E0F7030069857D2E4169EE7';
const wallet: WalletView = {
  walletId: 'wal_1',
  chain: 'evm',
  address: '0x1111111111111111111111111111111111111111',
  custodial: true,
  kind: 'custodial',
  isDefault: true,
  status: 'active',
  createdAt: '2026-03-01T12:00:00.000Z',
};
/** The one wallet approvals need; the wallet rules themselves are WalletService's tests. */
const wallets: ApprovalWallets = { activeWallet: async () => wallet };
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** Two handles on one LMDB directory: two processes sharing the embedded store. */
async function twoProcesses() {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
  const dir = await mkdtemp(join(tmpdir(), 'approvals-'));
  const handles = [
    new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
    new LmdbStore({ path: dir, clock, sweepIntervalMs: 3_600_000 }),
  ];
  cleanups.push(async () => {
    await Promise.all(handles.map((store) => store.close()));
    await rm(dir, { recursive: true, force: true });
  });
  for (const store of handles) await store.init(APPROVAL_COLLECTIONS);
  return { store: handles[0]!, services: handles.map((store) => new TokenApprovalsService({ store, clock, wallets })) };
}

describe('TokenApprovalsService under contention', () => {
  it('30 concurrent recordings of one allowance from two processes each land once, in the record and its journal', async () => {
    const { store, services } = await twoProcesses();
    const target = { chain: 'base', token: TOKEN, spender: SPENDER } as const;
    const recorded = await Promise.all(
      Array.from({ length: 30 }, (_, i) => services[i % 2]!.record(alice, { ...target, amount: String(i + 1) })),
    );
    const id = recorded[0]!.approvalId;
    expect(new Set(recorded.map((approval) => approval.approvalId))).toEqual(new Set([id]));
    const doc = await store.get<{ amount: string }>(APPROVALS_COLLECTION, id);
    expect(doc?.version).toBe(30);
    const journal = await store.readJournal(APPROVALS_COLLECTION, id, { limit: 100 });
    expect(journal.map((entry) => (entry.event as { amount: string }).amount).sort((a, b) => Number(a) - Number(b))).toEqual(
      Array.from({ length: 30 }, (_, i) => String(i + 1)),
    );
    // The last write is the record's amount: what the caller of that write was told.
    expect(doc?.data.amount).toBe((journal.at(-1)!.event as { amount: string }).amount);

    // Concurrent revocations: one revokes, the rest find no active approval.
    const revocations = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => services[i % 2]!.revoke(alice, target)));
    expect(revocations.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    for (const refused of revocations.filter((r) => r.status === 'rejected'))
      expect(refused.reason).toMatchObject({ kind: 'not_found', message: 'Approval not found' });
    expect(await store.get(APPROVALS_COLLECTION, id)).toMatchObject({ version: 31, data: { status: 'revoked' } });
  });
});
