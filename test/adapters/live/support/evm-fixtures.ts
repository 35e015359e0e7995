import { createWalletClient, type Address, type WalletClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { WalletSigner } from '../../../../kernel/ports/venue.port.js';
import type { EdrChain } from './edr-chain.js';

export interface TestEvmWallet {
  address: Address;
  privateKey: `0x${string}`;
}

export function newEvmWallet(): TestEvmWallet {
  const privateKey = generatePrivateKey();
  return { privateKey, address: privateKeyToAccount(privateKey).address };
}

/** A custodial-wallet signer over a test key; hands out a copy of the key and wipes it after. */
export function evmSigner(wallet: TestEvmWallet, walletId = 'wallet-evm'): WalletSigner & { uses: number } {
  const signer = {
    walletId,
    chain: 'evm' as const,
    address: wallet.address,
    uses: 0,
    async withSecretKey<T>(use: (secretKey: Uint8Array) => Promise<T>): Promise<T> {
      signer.uses++;
      const copy = Buffer.from(wallet.privateKey.slice(2), 'hex');
      try {
        return await use(new Uint8Array(copy));
      } finally {
        copy.fill(0);
      }
    },
  };
  return signer;
}

/** A viem wallet client for test setup (deployments, minting) signing locally with `wallet`'s key. */
export function setupWallet(edr: EdrChain, wallet: TestEvmWallet): WalletClient {
  return createWalletClient({ account: privateKeyToAccount(wallet.privateKey), transport: edr.transport });
}
