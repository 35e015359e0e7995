import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import { PAPER_COLLECTIONS } from '../../adapters/paper/paper-ledger.js';
import { PaperChain } from '../../adapters/paper/paper-chain.adapter.js';
import type { SignedTransfer } from '../../kernel/ports/chain.port.js';
import { NATIVE_SOL_MINT, type WalletSigner } from '../../kernel/ports/venue.port.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { PaperVenue } from '../../adapters/paper/paper-venue.adapter.js';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

async function setup() {
  const clock = new ManualClock();
  const store = new MemoryStore(clock);
  await store.init(PAPER_COLLECTIONS);
  const venue = new PaperVenue({ store, clock, seed: 'paper-chain' });
  const chain = new PaperChain({ chain: 'solana', store, clock });
  const owner = Keypair.generate().publicKey.toBase58();
  const signer: WalletSigner = {
    walletId: 'w',
    chain: 'solana',
    address: owner,
    withSecretKey: async () => Promise.reject(new Error('paper never signs with a key')),
  };
  await venue.credit('solana', owner, 'USDC', '5000000');
  return { chain, venue, owner, signer, store };
}

describe('PaperChain: withdrawals on the paper ledger', () => {
  it('moves exactly the amount from the wallet to the recipient, once per signed transaction', async () => {
    const { chain, venue, owner, signer } = await setup();
    const to = Keypair.generate().publicKey.toBase58();
    let signed: SignedTransfer | undefined;
    const { txSignature } = await chain.transfer({
      signer,
      to,
      token: USDC,
      amount: '1250000',
      beforeBroadcast: async (s) => {
        signed = s;
      },
    });
    expect(signed?.txSignature).toBe(txSignature);
    expect(await chain.confirmation(txSignature)).toBe('confirmed');
    expect(await chain.rebroadcast(signed!)).toBe('sent');
    expect(await venue.balances('solana', owner)).toEqual({ [USDC]: '3750000' });
    expect(await venue.balances('solana', to)).toEqual({ [USDC]: '1250000' });
  });

  it('moves nothing when the hook that persists it fails, and refuses an overdraft before signing', async () => {
    const { chain, venue, owner, signer } = await setup();
    const to = Keypair.generate().publicKey.toBase58();
    await expect(
      chain.transfer({ signer, to, token: USDC, amount: '1', beforeBroadcast: async () => Promise.reject(new Error('store down')) }),
    ).rejects.toThrow('store down');
    await expect(chain.transfer({ signer, to, token: USDC, amount: '5000001' })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    await expect(chain.transfer({ signer, to, amount: '1' })).rejects.toMatchObject({ code: 'INSUFFICIENT_BALANCE' });
    expect(await venue.balances('solana', owner)).toEqual({ [USDC]: '5000000' });
    expect(await chain.nativeBalance(owner)).toBe('0');
    expect(await chain.tokenBalance(owner, NATIVE_SOL_MINT)).toBe('0');
  });

  it('applies a persisted transaction the crash kept from the ledger once it is sent again, and refuses tampered bytes', async () => {
    const { chain, venue, signer } = await setup();
    const to = Keypair.generate().publicKey.toBase58();
    let signed: SignedTransfer | undefined;
    await expect(
      chain.transfer({
        signer,
        to,
        token: USDC,
        amount: '10',
        beforeBroadcast: async (s) => {
          signed = s;
          throw new Error('killed');
        },
      }),
    ).rejects.toThrow('killed');
    expect(await chain.confirmation(signed!.txSignature)).toBe('unknown');
    await Promise.all([chain.rebroadcast(signed!), chain.rebroadcast(signed!)]);
    expect(await venue.balances('solana', to)).toEqual({ [USDC]: '10' });
    const forged = Buffer.from(Buffer.from(signed!.signedTx, 'base64').toString().replace('"10"', '"99"')).toString('base64');
    await expect(chain.rebroadcast({ ...signed!, signedTx: forged })).rejects.toThrow('signed transaction does not match its signature');
  });

  describe('PaperChain.ledger: a transfer as writes the caller commits with its own', () => {
    it('signs without a read or a write; its writes move exactly the amount, once per signature', async () => {
      const { chain, venue, owner, signer, store } = await setup();
      const to = Keypair.generate().publicKey.toBase58();
      const signed = await chain.ledger.sign({ signer, to, token: USDC, amount: '1250000' });
      expect(await chain.confirmation(signed.txSignature)).toBe('unknown');
      const writes = await chain.ledger.writes(signed);
      // Nothing moves until the caller commits.
      expect(await venue.balances('solana', owner)).toEqual({ [USDC]: '5000000' });
      await store.commit(writes);
      expect(await chain.confirmation(signed.txSignature)).toBe('confirmed');
      expect(await venue.balances('solana', owner)).toEqual({ [USDC]: '3750000' });
      expect(await venue.balances('solana', to)).toEqual({ [USDC]: '1250000' });
      // The same writes again (a second caller that computed them too) conflict whole: nothing moves twice.
      await expect(store.commit(writes)).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
      // Computed again from fresh reads, the transfer document alone still refuses a second application.
      await expect(store.commit(await chain.ledger.writes(signed))).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
      expect(await venue.balances('solana', owner)).toEqual({ [USDC]: '3750000' });
      expect(await venue.balances('solana', to)).toEqual({ [USDC]: '1250000' });
    });

    it('starts from the balance check read, once: a commit after another write moved it conflicts, and fresh writes then apply once', async () => {
      const { chain, venue, owner, signer, store } = await setup();
      const to = Keypair.generate().publicKey.toBase58();
      expect(await chain.tokenBalance(owner, USDC)).toBe('5000000');
      const signed = await chain.ledger.sign({ signer, to, token: USDC, amount: '1000000' });
      const fromRead = await chain.ledger.writes(signed);
      await venue.credit('solana', owner, 'USDC', '1');
      await expect(store.commit(fromRead)).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
      await store.commit(await chain.ledger.writes(signed));
      expect(await venue.balances('solana', owner)).toEqual({ [USDC]: '4000001' });
      expect(await venue.balances('solana', to)).toEqual({ [USDC]: '1000000' });
    });

    it('refuses an overdraft by a fresh read: a read showing too little is read again, one showing enough cannot outlive its version', async () => {
      const { chain, venue, owner, signer, store } = await setup();
      const to = Keypair.generate().publicKey.toBase58();
      expect(await chain.tokenBalance(to, USDC)).toBe('0');
      await venue.credit('solana', to, 'USDC', '7');
      const fromTo: WalletSigner = { ...signer, address: to };
      // The kept read said 0: the fresh balance pays.
      await store.commit(await chain.ledger.writes(await chain.ledger.sign({ signer: fromTo, to: owner, token: USDC, amount: '7' })));
      expect(await venue.balances('solana', to)).toEqual({});
      await expect(chain.ledger.writes(await chain.ledger.sign({ signer, to, token: USDC, amount: '5000008' }))).rejects.toMatchObject({
        code: 'INSUFFICIENT_BALANCE',
        message: 'Insufficient balance for requested withdrawal amount',
      });
      // Another address's read is no read of this sender: its balance is read itself.
      await chain.tokenBalance(to, USDC);
      const signed = await chain.ledger.sign({ signer, to, token: USDC, amount: '5' });
      await store.commit(await chain.ledger.writes(signed));
      expect(await venue.balances('solana', owner)).toEqual({ [USDC]: '5000002' });
    });
  });
});
