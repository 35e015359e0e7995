import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  attemptOrderId,
  dcaOrderId,
  derivedId,
  derivedOrderId,
  legacyDcaOrderId,
  newOrderId,
  randomId,
} from '../../../kernel/vocabulary/ids.js';
import { derivedWalletId } from '../../../agents/wallets/wallet.records.js';
import { derivedWithdrawalId } from '../../../agents/withdrawals/withdrawal.service.js';

const FORMAT = /^ord_[A-Za-z0-9_-]{24}$/;

describe('order ids: one length and format', () => {
  it('random, key-derived and attempt ids all read `ord_` + 24 base64url characters', () => {
    const ids = [
      newOrderId(),
      newOrderId(),
      derivedOrderId('agent:a1|2f0c0a4e-8c1e-4c5a-9a8e-0d2b6c3f1e7a'),
      attemptOrderId(derivedOrderId('x'), 2),
      attemptOrderId('ord_short', 5),
      dcaOrderId('dca_s1', 1_795_000_000_000),
    ];
    for (const id of ids) expect(id).toMatch(FORMAT);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('a derived id is the same on every call (a retry finds its order), and what it was before this format was fixed', () => {
    expect(derivedOrderId('agent:a1|k')).toBe(derivedOrderId('agent:a1|k'));
    // Key-derived ids had this format already: orders placed before keep being found.
    expect(derivedOrderId('agent:a1|k')).toBe(`ord_${createHash('sha256').update('agent:a1|k').digest('base64url').slice(0, 24)}`);
    expect(attemptOrderId('ord_a', 2)).not.toBe(attemptOrderId('ord_a', 3));
  });

  it("a DCA tick's id is derived from strategy and due time (one order per tick); its former name is kept for the lookup", () => {
    expect(dcaOrderId('dca_s1', 1_795_000_000_000)).toBe(dcaOrderId('dca_s1', 1_795_000_000_000));
    expect(dcaOrderId('dca_s1', 1_795_000_000_000)).not.toBe(dcaOrderId('dca_s1', 1_795_000_060_000));
    expect(dcaOrderId('dca_s1', 1_795_000_000_000)).not.toBe(dcaOrderId('dca_s2', 1_795_000_000_000));
    expect(legacyDcaOrderId('dca_s1', 1_795_000_000_000)).toBe('ord_dca_s1_1795000000000');
  });
});

describe('one id helper for orders and withdrawals', () => {
  it('derives the ids it derived before the two were folded into one: stored orders and withdrawals keep being found', () => {
    // Pinned from the code before the fold (each kind had its own copy of the hash).
    expect(derivedOrderId('agent:a1|2f0c0a4e-8c1e-4c5a-9a8e-0d2b6c3f1e7a')).toBe('ord_4qKj759DwcVAoVmxbO9xUP9f');
    expect(dcaOrderId('dca_s1', 1_795_000_000_000)).toBe('ord_oxKGiEsqS-RhM4Gbiq3jtKwE');
    expect(derivedWithdrawalId({ type: 'agent', id: 'agt_w' }, '2F0C0A4E-8C1E-4C5A-9A8E-0D2B6C3F1E7A')).toBe('wd_b1DXq9u0z5Bbdc9jlfuKGOmf');
    expect(derivedWithdrawalId({ type: 'bot', id: 'bot_1' }, 'k-1')).toBe('wd_WQxx3VzIBpj-sSBBpbrXU3uP');
    // The key's case does not count for a withdrawal.
    expect(derivedWithdrawalId({ type: 'agent', id: 'agt_w' }, '2f0c0a4e-8c1e-4c5a-9a8e-0d2b6c3f1e7a')).toBe('wd_b1DXq9u0z5Bbdc9jlfuKGOmf');
  });

  it('random and derived ids of any prefix share the format', () => {
    expect(randomId('wd')).toMatch(/^wd_[A-Za-z0-9_-]{24}$/);
    expect(derivedId('wd', 'seed')).toMatch(/^wd_[A-Za-z0-9_-]{24}$/);
    expect(derivedId('ord', 'seed')).toBe(derivedOrderId('seed'));
  });

  it('wallet ids, once hashed by a copy of their own, are derived as before: stored wallets keep being found', () => {
    // Pinned from the code before wallets took the shared helper (their parts joined by newlines).
    expect(derivedWalletId('custodial-slot', 'agent:agt_1', 'solana', '0')).toBe('wal_i7hJz9j0IDaaNSYqjuhE2Txa');
    expect(derivedWalletId('request', 'agent:agt_1', 'base', 'custodial', 'k-1')).toBe('wal_SmUBec39B2X1qJWWR_ArwcRN');
    expect(randomId('wal')).toMatch(/^wal_[A-Za-z0-9_-]{24}$/);
  });
});
