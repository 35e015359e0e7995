import { parseEther, type Address } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { EvmChain, evmRpcTransport } from '../../../adapters/evm/evm-chain.adapter.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { SignedTransfer } from '../../../kernel/ports/chain.port.js';
import { NATIVE_EVM_ADDRESS } from '../../../kernel/ports/venue.port.js';
import { EdrChain } from './support/edr-chain.js';
import { evmSigner, newEvmWallet, setupWallet, type TestEvmWallet } from './support/evm-fixtures.js';
import { TEST_TOKEN_ABI, deployTestToken } from './support/test-token.js';

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('EvmChain over EDR (base, chain id 8453)', () => {
  let edr: EdrChain;
  let chain: EvmChain;
  let alice: TestEvmWallet;
  let token: Address;

  beforeAll(async () => {
    alice = newEvmWallet();
    edr = await EdrChain.start({ chainId: 8453, funded: [{ address: alice.address, wei: parseEther('10') }] });
    chain = new EvmChain({ chain: 'base', transport: edr.transport });
    const wallet = setupWallet(edr, alice);
    token = await deployTestToken(wallet, chain.client, { name: 'Test USD', symbol: 'TUSD', decimals: 6 });
    await wallet.writeContract({
      address: token,
      abi: TEST_TOKEN_ABI,
      functionName: 'mint',
      args: [alice.address, 5_000_000n],
      chain: null,
      account: wallet.account!,
    });
  });

  it('reads native balances, also under the native marker address', async () => {
    const fresh = newEvmWallet().address;
    expect(await chain.nativeBalance(fresh)).toBe('0');
    expect(BigInt(await chain.nativeBalance(alice.address))).toBeLessThan(parseEther('10'));
    expect(await chain.tokenBalance(alice.address, NATIVE_EVM_ADDRESS)).toBe(await chain.nativeBalance(alice.address));
  });

  it('transfers ETH, persisting the hash before broadcast, and confirms it', async () => {
    const bob = newEvmWallet().address;
    const signer = evmSigner(alice);
    const broadcastsAtHook: string[][] = [];
    const { txSignature } = await chain.transfer({
      signer,
      to: bob,
      amount: String(parseEther('1.5')),
      beforeBroadcast: async () => void broadcastsAtHook.push([...edr.broadcasts]),
    });
    expect(txSignature).toMatch(/^0x[0-9a-f]{64}$/);
    expect(broadcastsAtHook[0]).not.toContain(txSignature);
    expect(edr.broadcasts).toContain(txSignature);
    expect(await chain.confirmation(txSignature)).toBe('confirmed');
    expect(await chain.nativeBalance(bob)).toBe(String(parseEther('1.5')));
    expect(signer.uses).toBe(1);
  });

  it('reads and transfers an ERC-20, and reads its metadata from the contract', async () => {
    const bob = newEvmWallet().address;
    expect(await chain.tokenBalance(alice.address, token)).toBe('5000000');
    const { txSignature } = await chain.transfer({ signer: evmSigner(alice), to: bob, token, amount: '1250000' });
    expect(await chain.confirmation(txSignature)).toBe('confirmed');
    expect(await chain.tokenBalance(bob, token)).toBe('1250000');
    expect(await chain.tokenBalance(alice.address, token)).toBe('3750000');
    expect(await chain.readErc20(token)).toEqual({ symbol: 'TUSD', name: 'Test USD', decimals: 6 });
    expect(await chain.readErc20(bob)).toBeNull();
  });

  it('reports a broadcast transaction as pending until it is mined', async () => {
    await edr.request('evm_setAutomine', [false]);
    try {
      const { txSignature } = await chain.transfer({ signer: evmSigner(alice), to: newEvmWallet().address, amount: '1000' });
      expect(await chain.confirmation(txSignature)).toBe('pending');
      await edr.request('evm_mine');
      expect(await chain.confirmation(txSignature)).toBe('confirmed');
    } finally {
      await edr.request('evm_setAutomine', [true]);
    }
  });

  it('refuses what the wallet cannot pay, and malformed input, before signing', async () => {
    const signer = evmSigner(alice);
    expect((await failure(chain.transfer({ signer, to: newEvmWallet().address, amount: String(parseEther('100')) }))).code).toBe(
      'INSUFFICIENT_BALANCE',
    );
    expect((await failure(chain.transfer({ signer, to: newEvmWallet().address, token, amount: '999999999' }))).code).toBe(
      'INSUFFICIENT_BALANCE',
    );
    expect((await failure(chain.transfer({ signer, to: '0x1234', amount: '1' }))).code).toBe('VALIDATION_ERROR');
    expect((await failure(chain.nativeBalance('vitalik'))).code).toBe('VALIDATION_ERROR');
    expect(signer.uses).toBe(0);
  });

  it('takes amount plus fee from the sender, exactly: the recipient gets the amount', async () => {
    const bob = newEvmWallet().address;
    const before = BigInt(await chain.nativeBalance(alice.address));
    const { txSignature } = await chain.transfer({ signer: evmSigner(alice), to: bob, amount: '123456789' });
    const receipt = await chain.client.getTransactionReceipt({ hash: txSignature as `0x${string}` });
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(fee).toBeGreaterThan(0n);
    expect(await chain.nativeBalance(bob)).toBe('123456789');
    expect(before - BigInt(await chain.nativeBalance(alice.address))).toBe(123456789n + fee);
  });

  it('gives concurrent transfers of one sender their own nonces: each lands', async () => {
    const bob = newEvmWallet().address;
    const sent = await Promise.all(Array.from({ length: 5 }, () => chain.transfer({ signer: evmSigner(alice), to: bob, amount: '1000' })));
    for (const { txSignature } of sent) expect(await chain.confirmation(txSignature)).toBe('confirmed');
    expect(await chain.nativeBalance(bob)).toBe('5000');
  });

  it('sends the same signed bytes again after a lost broadcast: mined once; expired once its nonce is taken', async () => {
    const bob = newEvmWallet().address;
    let signed: SignedTransfer | undefined;
    edr.dropNextSends = 1;
    const { txSignature } = await chain.transfer({
      signer: evmSigner(alice),
      to: bob,
      amount: '777',
      beforeBroadcast: async (s) => {
        signed = s;
      },
    });
    expect(signed).toMatchObject({ txSignature, signedTx: expect.stringMatching(/^0x02/) });
    expect(await chain.confirmation(txSignature)).toBe('unknown');
    expect(await chain.rebroadcast(signed!)).toBe('sent');
    expect(await chain.rebroadcast(signed!)).toBe('sent');
    expect(await chain.confirmation(txSignature)).toBe('confirmed');
    expect(await chain.nativeBalance(bob)).toBe('777');

    // Lost, and its nonce then used by the next transfer: it can never be mined.
    edr.dropNextSends = 1;
    let lost: SignedTransfer | undefined;
    await chain.transfer({
      signer: evmSigner(alice),
      to: bob,
      amount: '5',
      beforeBroadcast: async (s) => {
        lost = s;
      },
    });
    // The dropped one never reached the mempool: the pending nonce is the same again.
    await chain.transfer({ signer: evmSigner(alice), to: bob, amount: '6' });
    expect(await chain.rebroadcast(lost!)).toBe('expired');
    expect(await chain.nativeBalance(bob)).toBe('783');
  });

  it('reports unknown transactions, and health from the block number', async () => {
    expect(await chain.confirmation(`0x${'ab'.repeat(32)}`)).toBe('unknown');
    expect(await chain.health()).toMatchObject({ chain: 'base', reachable: true, blockHeight: expect.any(Number) });
    const down = new EvmChain({ chain: 'base', transport: evmRpcTransport('http://127.0.0.1:9') });
    const health = await down.health();
    expect(health.reachable).toBe(false);
    expect(health.error).toMatch(/^Provider unavailable: base-rpc \(getBlockNumber failed/);
  });
});
