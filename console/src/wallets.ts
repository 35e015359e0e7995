/**
 * Browser wallets as the SDK's signers: an injected Solana provider (`window.solana`, the
 * Phantom-style API most Solana wallets also inject) and an EIP-1193 provider (`window.ethereum`).
 */
import { getAddress } from 'viem';
import type { EvmSigner, SolanaSigner } from 'agent-runtime-sdk';

interface InjectedSolana {
  publicKey?: { toString(): string } | null;
  connect(): Promise<{ publicKey: { toString(): string } }>;
  signMessage(message: Uint8Array, display?: string): Promise<{ signature: Uint8Array } | Uint8Array>;
}

interface Eip1193 {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

declare global {
  interface Window {
    solana?: InjectedSolana;
    ethereum?: Eip1193;
  }
}

export const hasSolanaWallet = (): boolean => typeof window.solana?.signMessage === 'function';
export const hasEvmWallet = (): boolean => typeof window.ethereum?.request === 'function';

export async function solanaSigner(): Promise<SolanaSigner> {
  const wallet = window.solana;
  if (!wallet) throw new Error('No Solana wallet found in this browser');
  const { publicKey } = await wallet.connect();
  return {
    address: publicKey.toString(),
    signMessage: async (message) => {
      const signed = await wallet.signMessage(message, 'utf8');
      return signed instanceof Uint8Array ? signed : signed.signature;
    },
  };
}

const toHex = (text: string): string =>
  `0x${Array.from(new TextEncoder().encode(text), (byte) => byte.toString(16).padStart(2, '0')).join('')}`;

export async function evmSigner(): Promise<EvmSigner & { chainId: number }> {
  const provider = window.ethereum;
  if (!provider) throw new Error('No Ethereum wallet found in this browser');
  const accounts = (await provider.request({ method: 'eth_requestAccounts' })) as string[];
  const first = accounts[0];
  if (!first) throw new Error('The wallet shared no account');
  // EIP-4361 names the address checksummed (EIP-55); wallets often answer in lower case.
  const address = getAddress(first);
  const chainId = Number.parseInt(String(await provider.request({ method: 'eth_chainId' })), 16);
  return {
    address,
    chainId,
    signMessage: async ({ message }) => String(await provider.request({ method: 'personal_sign', params: [toHex(message), address] })),
  };
}
