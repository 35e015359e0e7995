import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { NONCE_COLLECTIONS, NonceService } from '../../../src/auth/wallet/nonce.service.js';
import { expectAppError } from '../../support/wallet-login-harness.js';

async function setup(ttlMs?: number) {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  const nonces = new NonceService({ store, clock, ...(ttlMs === undefined ? {} : { ttlMs }) });
  await nonces.init();
  return { clock, store, nonces };
}

describe('NonceService', () => {
  it('issues random alphanumeric nonces that expire after the TTL (5 minutes by default)', async () => {
    const { clock, nonces } = await setup();
    const a = await nonces.issue('solana', 'addr');
    const b = await nonces.issue('solana', 'addr');
    expect(a.nonce).toMatch(/^[A-Za-z0-9]{8,}$/);
    expect(a.nonce.length * 4).toBeGreaterThanOrEqual(96); // hex: 4 bits per character
    expect(a.nonce).not.toBe(b.nonce);
    expect(a.expiresAtMs).toBe(clock.now() + 5 * 60_000);
    expect(a.expiresAt).toBe(new Date(a.expiresAtMs).toISOString());
    expect(NONCE_COLLECTIONS.map((c) => c.name)).toEqual(['auth_nonces']);
  });

  it('consumes once, then reports reuse until the original expiry, then unknown', async () => {
    const { clock, nonces } = await setup(60_000);
    const { nonce } = await nonces.issue('evm');
    await expect(nonces.consume('evm', nonce)).resolves.toEqual({ kind: 'evm' });
    await expectAppError(nonces.consume('evm', nonce), 401, 'Nonce already consumed');
    await clock.advance(59_999);
    await expectAppError(nonces.consume('evm', nonce), 401, 'Nonce already consumed');
    await clock.advance(1);
    await expectAppError(nonces.consume('evm', nonce), 401, 'Invalid or expired nonce');
  });

  it('rejects unknown, malformed and expired nonces', async () => {
    const { clock, nonces } = await setup();
    await expectAppError(nonces.consume('evm', 'abcdef0123456789'), 401, 'Invalid or expired nonce');
    await expectAppError(nonces.consume('evm', 'short'), 401, 'Invalid or expired nonce');
    await expectAppError(nonces.consume('evm', 'has spaces and / slashes'), 401, 'Invalid or expired nonce');
    const { nonce } = await nonces.issue('evm');
    await clock.advance(5 * 60_000);
    await expectAppError(nonces.consume('evm', nonce), 401, 'Invalid or expired nonce');
  });

  it('keeps Solana and EVM nonces apart', async () => {
    const { nonces } = await setup();
    const { nonce } = await nonces.issue('evm');
    await expectAppError(nonces.consume('solana', nonce, 'x'), 401, 'Invalid or expired nonce');
    await expect(nonces.consume('evm', nonce)).resolves.toBeDefined();
  });

  it('lets exactly one of many concurrent consumes win', async () => {
    const { nonces } = await setup();
    const { nonce } = await nonces.issue('solana', 'wallet1');
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => nonces.consume('solana', nonce, 'wallet1')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(failures).toHaveLength(4);
    for (const f of failures) expect(f.reason).toMatchObject({ kind: 'unauthenticated', message: 'Nonce already consumed' });
  });

  it('refuses a bound nonce for another or no wallet without burning it', async () => {
    const { nonces } = await setup();
    const { nonce } = await nonces.issue('solana', 'wallet1');
    await expectAppError(nonces.consume('solana', nonce, 'wallet2'), 401, 'Wallet address does not match signed message');
    await expectAppError(nonces.consume('solana', nonce), 401, 'Wallet address does not match signed message');
    await expect(nonces.consume('solana', nonce, 'wallet1')).resolves.toEqual({ kind: 'solana', walletAddress: 'wallet1' });
  });

  it('compares bound EVM addresses without regard to checksum casing', async () => {
    const { nonces } = await setup();
    const { nonce } = await nonces.issue('evm', '0xAbCdEf0000000000000000000000000000000001');
    await expect(nonces.consume('evm', nonce, '0xabcdef0000000000000000000000000000000001')).resolves.toBeDefined();
  });

  it('rejects a non-positive TTL at construction', () => {
    const clock = new ManualClock();
    expect(() => new NonceService({ store: new MemoryStore(clock), clock, ttlMs: 0 })).toThrow(RangeError);
  });
});
