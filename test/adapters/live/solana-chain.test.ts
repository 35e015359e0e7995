import { Keypair, LAMPORTS_PER_SOL, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { ProviderBreaker } from '../../../adapters/resilience/provider-breaker.js';
import { SolanaChain } from '../../../adapters/solana/solana-chain.adapter.js';
import { connectionRpc } from '../../../adapters/solana/solana-rpc.js';
import { associatedTokenAddress, transferCheckedInstruction } from '../../../adapters/solana/spl-token.helpers.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { SignedTransfer } from '../../../kernel/ports/chain.port.js';
import { NATIVE_SOL_MINT } from '../../../kernel/ports/venue.port.js';
import { LiteSvmRpc } from './support/litesvm-rpc.js';
import { createMint, setTokenBalance, solanaSigner } from './support/solana-fixtures.js';
import { httpStatusOf } from '../../../src/surface-common/http-status.js';

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('SolanaChain over LiteSVM', () => {
  let rpc: LiteSvmRpc;
  let chain: SolanaChain;
  let alice: Keypair;

  beforeEach(() => {
    rpc = new LiteSvmRpc();
    chain = new SolanaChain({ rpc });
    alice = Keypair.generate();
    rpc.airdrop(alice.publicKey, BigInt(2 * LAMPORTS_PER_SOL));
  });

  it('reads native balances, zero for an unknown account', async () => {
    expect(await chain.nativeBalance(alice.publicKey.toBase58())).toBe(String(2 * LAMPORTS_PER_SOL));
    expect(await chain.nativeBalance(Keypair.generate().publicKey.toBase58())).toBe('0');
    expect(await chain.tokenBalance(alice.publicKey.toBase58(), NATIVE_SOL_MINT)).toBe(String(2 * LAMPORTS_PER_SOL));
  });

  it('transfers SOL, persisting the signature before broadcast, and confirms it', async () => {
    const bob = Keypair.generate().publicKey;
    const signer = solanaSigner(alice);
    let landedAtHook: string[] | undefined;
    const { txSignature } = await chain.transfer({
      signer,
      to: bob.toBase58(),
      amount: String(LAMPORTS_PER_SOL / 2),
      beforeBroadcast: async ({ txSignature: signature }) => {
        landedAtHook = [...rpc.landed];
        expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
      },
    });
    expect(landedAtHook).toEqual([]);
    expect(rpc.landed).toEqual([txSignature]);
    expect(await chain.confirmation(txSignature)).toBe('confirmed');
    expect(await chain.nativeBalance(bob.toBase58())).toBe(String(LAMPORTS_PER_SOL / 2));
    expect(BigInt(await chain.nativeBalance(alice.publicKey.toBase58()))).toBe(BigInt(1.5 * LAMPORTS_PER_SOL) - 5_000n);
    expect(signer.uses).toBe(1);
  });

  it('broadcasts nothing when the hook that persists the signature fails', async () => {
    const promise = chain.transfer({
      signer: solanaSigner(alice),
      to: Keypair.generate().publicKey.toBase58(),
      amount: '1000000',
      beforeBroadcast: async () => Promise.reject(new Error('store down')),
    });
    await expect(promise).rejects.toThrow('store down');
    expect(rpc.landed).toEqual([]);
  });

  it('refuses a transfer the wallet cannot pay, before signing', async () => {
    const signer = solanaSigner(alice);
    const error = await failure(
      chain.transfer({ signer, to: Keypair.generate().publicKey.toBase58(), amount: String(2 * LAMPORTS_PER_SOL) }),
    );
    expect(error.code).toBe('INSUFFICIENT_BALANCE');
    expect(signer.uses).toBe(0);
    expect(rpc.landed).toEqual([]);
  });

  it('translates a preflight refusal (new account below rent minimum) into a 400', async () => {
    const error = await failure(chain.transfer({ signer: solanaSigner(alice), to: Keypair.generate().publicKey.toBase58(), amount: '10' }));
    expect(httpStatusOf(error)).toBe(400);
    expect(error.message).toMatch(/insufficient funds for rent/);
    expect(rpc.landed).toEqual([]);
  });

  it('refuses malformed addresses and amounts with 400s', async () => {
    expect((await failure(chain.nativeBalance('not-an-address'))).code).toBe('VALIDATION_ERROR');
    expect((await failure(chain.transfer({ signer: solanaSigner(alice), to: 'nope', amount: '1' }))).code).toBe('VALIDATION_ERROR');
    expect(
      (await failure(chain.transfer({ signer: solanaSigner(alice), to: Keypair.generate().publicKey.toBase58(), amount: '1.5' }))).code,
    ).toBe('VALIDATION_ERROR');
  });

  it('reads and transfers SPL tokens, creating the recipient account', async () => {
    const mint = createMint(rpc, 6);
    setTokenBalance(rpc, alice.publicKey, mint, 5_000_000n);
    const bob = Keypair.generate().publicKey;
    expect(await chain.tokenBalance(alice.publicKey.toBase58(), mint.toBase58())).toBe('5000000');
    expect(await chain.tokenBalance(bob.toBase58(), mint.toBase58())).toBe('0');

    const { txSignature } = await chain.transfer({
      signer: solanaSigner(alice),
      to: bob.toBase58(),
      token: mint.toBase58(),
      amount: '1250000',
    });
    expect(await chain.confirmation(txSignature)).toBe('confirmed');
    expect(await chain.tokenBalance(bob.toBase58(), mint.toBase58())).toBe('1250000');
    expect(await chain.tokenBalances(alice.publicKey.toBase58())).toEqual({ [mint.toBase58()]: '3750000' });

    const tooMuch = await failure(
      chain.transfer({ signer: solanaSigner(alice), to: bob.toBase58(), token: mint.toBase58(), amount: '9000000' }),
    );
    expect(tooMuch.code).toBe('INSUFFICIENT_BALANCE');
    const unknownMint = await failure(
      chain.transfer({ signer: solanaSigner(alice), to: bob.toBase58(), token: Keypair.generate().publicKey.toBase58(), amount: '1' }),
    );
    expect(unknownMint.message).toMatch(/^Token not found: /);
  });

  it('sends the same signed bytes again after a lost broadcast: it lands once, and expires when its blockhash does', async () => {
    const bob = Keypair.generate().publicKey;
    let signed: SignedTransfer | undefined;
    rpc.dropNextSends = 1;
    const { txSignature } = await chain.transfer({
      signer: solanaSigner(alice),
      to: bob.toBase58(),
      amount: String(LAMPORTS_PER_SOL),
      beforeBroadcast: async (s) => {
        signed = s;
      },
    });
    expect(signed!.txSignature).toBe(txSignature);
    expect(signed!.validUntilHeight).toBeGreaterThan(await rpc.getBlockHeight());
    expect(await chain.confirmation(txSignature)).toBe('unknown');
    expect(await chain.rebroadcast(signed!)).toBe('sent');
    expect(await chain.rebroadcast(signed!)).toBe('sent');
    expect(rpc.landed).toEqual([txSignature]);
    expect(await chain.nativeBalance(bob.toBase58())).toBe(String(LAMPORTS_PER_SOL));
    expect(await chain.nativeBalance(alice.publicKey.toBase58())).toBe(String(LAMPORTS_PER_SOL - 5_000));

    rpc.dropNextSends = 1;
    let lost: SignedTransfer | undefined;
    await chain.transfer({
      signer: solanaSigner(alice),
      to: bob.toBase58(),
      amount: '1000000',
      beforeBroadcast: async (s) => {
        lost = s;
      },
    });
    rpc.warpSlots(lost!.validUntilHeight! - (await rpc.getBlockHeight()) + 1);
    expect(await chain.rebroadcast(lost!)).toBe('expired');
    expect(await chain.confirmation(lost!.txSignature)).toBe('unknown');
    await expect(chain.rebroadcast({ ...lost!, txSignature: txSignature })).rejects.toThrow(
      'signed transaction does not match its signature',
    );
  });

  it("pays an SPL transfer to a recipient without a token account: the sender pays the fee and the new account's rent in SOL", async () => {
    const mint = createMint(rpc, 6);
    setTokenBalance(rpc, alice.publicKey, mint, 1_000n);
    const bob = Keypair.generate().publicKey;
    const solBefore = BigInt(await chain.nativeBalance(alice.publicKey.toBase58()));
    const { txSignature } = await chain.transfer({
      signer: solanaSigner(alice),
      to: bob.toBase58(),
      token: mint.toBase58(),
      amount: '400',
    });
    expect(await chain.confirmation(txSignature)).toBe('confirmed');
    expect(await chain.tokenBalance(bob.toBase58(), mint.toBase58())).toBe('400');
    expect(await chain.tokenBalance(alice.publicKey.toBase58(), mint.toBase58())).toBe('600');
    const account = await rpc.getAccountInfo(associatedTokenAddress(bob, mint));
    expect(solBefore - BigInt(await chain.nativeBalance(alice.publicKey.toBase58()))).toBe(5_000n + BigInt(account!.lamports));
  });

  it('makes equal transfers under one blockhash distinct with a reference: both land', async () => {
    const bob = Keypair.generate().publicKey.toBase58();
    const same = { signer: solanaSigner(alice), to: bob, amount: String(LAMPORTS_PER_SOL / 10) };
    const [a, b] = await Promise.all([chain.transfer({ ...same, reference: 'wd_a' }), chain.transfer({ ...same, reference: 'wd_b' })]);
    expect(a.txSignature).not.toBe(b.txSignature);
    expect(await chain.nativeBalance(bob)).toBe(String(LAMPORTS_PER_SOL / 5));
  });

  it('reports failed and unknown signatures', async () => {
    const mint = createMint(rpc, 6);
    setTokenBalance(rpc, alice.publicKey, mint, 10n);
    // Sent without preflight, an overdraft lands as a failed transaction (token program error 1).
    const tx = new VersionedTransaction(
      new TransactionMessage({
        payerKey: alice.publicKey,
        recentBlockhash: (await rpc.getLatestBlockhash()).blockhash,
        instructions: [
          transferCheckedInstruction({
            source: associatedTokenAddress(alice.publicKey, mint),
            mint,
            destination: associatedTokenAddress(alice.publicKey, mint),
            owner: alice.publicKey,
            amount: 11n,
            decimals: 6,
          }),
        ],
      }).compileToV0Message(),
    );
    tx.sign([alice]);
    const signature = await rpc.sendRawTransaction(tx.serialize(), { skipPreflight: true });
    expect(await chain.confirmation(signature)).toBe('failed');
    expect(await chain.confirmation('1111111111111111111111111111111111111111111111111111111111111111')).toBe('unknown');
  });

  it('puts every RPC call behind the breaker it is given', async () => {
    const breaker = new ProviderBreaker({ provider: 'solana-rpc', threshold: 2, timeoutMs: 2_000 });
    const down = new SolanaChain({ rpc: connectionRpc('http://127.0.0.1:9'), breaker });
    for (let i = 0; i < 2; i++) expect((await failure(down.nativeBalance(alice.publicKey.toBase58()))).code).toBe('PROVIDER_UNAVAILABLE');
    expect((await failure(down.nativeBalance(alice.publicKey.toBase58()))).message).toBe('Circuit breaker open for provider: solana-rpc');
    expect(await down.health()).toMatchObject({ reachable: false, error: 'Circuit breaker open for provider: solana-rpc' });
  });

  it('reports health from the block height, and an unreachable node without throwing', async () => {
    const before = await rpc.getBlockHeight();
    rpc.warpSlots(42);
    expect(await chain.health()).toMatchObject({ chain: 'solana', reachable: true, blockHeight: before + 42 });
    const down = new SolanaChain({ rpc: connectionRpc('http://127.0.0.1:9') });
    const health = await down.health();
    expect(health).toMatchObject({ chain: 'solana', reachable: false });
    expect(health.error).toMatch(/^Provider unavailable: solana-rpc \(getBlockHeight failed/);
  });
});
