/**
 * The chains the service trades on, in one table: everything else (the venue and chain ports,
 * configuration, the catalog's zod schemas and descriptions, the SDK's generated types and so
 * the console) derives its list from here. Adding a chain is one row here plus its tokens in
 * the adapter that trades it.
 *
 * A chain belongs to a wallet family: one Solana keypair, or one EVM account whose address
 * works on every EVM chain. The family decides the address rules (`parseAddress` in
 * `chain-address.ts`) and the native coin's marker.
 */

/** Native SOL as the wrapped-SOL mint, as Solana aggregators name it. */
export const NATIVE_SOL_MINT = 'So11111111111111111111111111111111111111112';
/** Native ETH on EVM chains, as 0x-style swap APIs name it. */
export const NATIVE_EVM_ADDRESS = '0xEeeeeEeeeEeEeeEeEeEeeEEEeeeeEeeeeeeeEEeE';

/** A chain's native coin: what pays its fees, under the marker the venues use for it. */
export interface NativeToken {
  symbol: string;
  name: string;
  address: string;
  decimals: number;
}

const SOL: NativeToken = { symbol: 'SOL', name: 'Solana', address: NATIVE_SOL_MINT, decimals: 9 };
const ETH: NativeToken = { symbol: 'ETH', name: 'Ether', address: NATIVE_EVM_ADDRESS, decimals: 18 };

/**
 * Every chain: its family, its display name, its native coin and, on EVM, its EIP-155 chain id.
 * The order is the order of every list shown to callers (the first is the default chain).
 */
const CHAIN_TABLE = {
  solana: { family: 'solana', label: 'Solana', native: SOL },
  ethereum: { family: 'evm', label: 'Ethereum', native: ETH, evmChainId: 1 },
  base: { family: 'evm', label: 'Base', native: ETH, evmChainId: 8453 },
  arbitrum: { family: 'evm', label: 'Arbitrum', native: ETH, evmChainId: 42161 },
  optimism: { family: 'evm', label: 'Optimism', native: ETH, evmChainId: 10 },
} as const satisfies Record<string, ChainFacts>;

interface ChainFacts {
  family: WalletChain;
  label: string;
  native: NativeToken;
  evmChainId?: number;
}

/** Chains the service trades on. EVM chains share wallets (one address works on each). */
export type Chain = keyof typeof CHAIN_TABLE;
/** The EVM chains, by the ports' names. */
export type EvmChain = { [C in Chain]: (typeof CHAIN_TABLE)[C]['family'] extends 'evm' ? C : never }[Chain];

/** Wallet family: a Solana keypair, or one EVM account for every EVM chain. */
export type WalletChain = 'solana' | 'evm';
export const WALLET_CHAINS = ['solana', 'evm'] as const satisfies readonly WalletChain[];

/** Every chain, in the table's order (a non-empty tuple, as `z.enum` takes it). */
export const CHAINS = Object.keys(CHAIN_TABLE) as [Chain, ...Chain[]];
export const EVM_CHAINS = CHAINS.filter((chain): chain is EvmChain => CHAIN_TABLE[chain].family === 'evm') as [EvmChain, ...EvmChain[]];
/** EIP-155 chain ids of the EVM chains. */
export const EVM_CHAIN_IDS: Readonly<Record<EvmChain, number>> = Object.freeze(
  Object.fromEntries(EVM_CHAINS.map((chain) => [chain, CHAIN_TABLE[chain].evmChainId])) as Record<EvmChain, number>,
);

export function isChain(value: string): value is Chain {
  return Object.hasOwn(CHAIN_TABLE, value);
}

export function isEvmChain(value: string): value is EvmChain {
  return isChain(value) && CHAIN_TABLE[value].family === 'evm';
}

export function walletChainOf(chain: Chain): WalletChain {
  return CHAIN_TABLE[chain].family;
}

/** The chain's display name ("Arbitrum"). */
export function chainLabel(chain: Chain): string {
  return CHAIN_TABLE[chain].label;
}

/** The chain's native coin. */
export function nativeToken(chain: Chain): NativeToken {
  return CHAIN_TABLE[chain].native;
}

/** `a, b or c`: how descriptions and messages name a list of chains (or of their ids). */
function listInWords(items: readonly (string | number)[], last = 'or'): string {
  const words = items.map(String);
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} ${last} ${words.at(-1)}`;
}

/** `solana, ethereum, base or arbitrum`: the chains as descriptions name them. */
export const CHAIN_WORDS = listInWords(CHAINS);
/** `Ethereum, Base and Arbitrum`: the chains one EVM wallet serves. */
export const EVM_CHAIN_LABELS = listInWords(EVM_CHAINS.map(chainLabel), 'and');
/** `Ethereum 1, Base 8453, Arbitrum 42161`: the EVM chains with their EIP-155 ids. */
export const EVM_CHAIN_ID_WORDS = EVM_CHAINS.map((chain) => `${chainLabel(chain)} ${EVM_CHAIN_IDS[chain]}`).join(', ');
/** `1, 8453 or 42161`: the EIP-155 ids of the EVM chains. */
export const EVM_CHAIN_ID_LIST = listInWords(EVM_CHAINS.map((chain) => EVM_CHAIN_IDS[chain]));
