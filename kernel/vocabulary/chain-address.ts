import bs58 from 'bs58';
import { getAddress } from 'viem';
import { type Chain, type WalletChain, walletChainOf } from './chains.js';

/**
 * Addresses as every surface takes them, one parser per chain kind: withdrawal recipients and
 * the allowlist, token contracts and mints in trading, configuration and approvals, external
 * wallets. A value that does not parse is refused with `invalidAddress`, never corrected.
 */

const EVM_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** `<field> is not a valid <chain> address`: the one refusal of an address that is not one on its chain. */
export function invalidAddress(field: string, chain: string): string {
  return `${field} is not a valid ${chain} address`;
}

/**
 * An EVM address in its EIP-55 form, or null. Mixed case is a checksum claim (EIP-55): one that
 * fails is a typo, refused rather than fixed; all-lower and all-upper digits carry no checksum
 * and are taken as they are.
 */
export function parseEvmAddress(value: string): `0x${string}` | null {
  if (!EVM_ADDRESS.test(value)) return null;
  const digits = value.slice(2);
  const checksummed = getAddress(value.toLowerCase());
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return checksummed;
  return checksummed === value ? checksummed : null;
}

/** A Solana address (base58 of 32 bytes) as given, or null. */
export function parseSolanaAddress(value: string): string | null {
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(value)) return null;
  try {
    return bs58.decode(value).length === 32 ? value : null;
  } catch {
    return null;
  }
}

/**
 * Why a token named by symbol or address on `chain` is refused before any lookup (a 400 message
 * naming `field`), or undefined: on an EVM chain a 0x address must parse, so a wrong checksum is
 * not looked up case-insensitively and found. Solana mints have no checksum: the lookup decides.
 */
export function tokenAddressProblem(chain: Chain, ref: string, field: string): string | undefined {
  if (walletChainOf(chain) === 'solana' || !EVM_ADDRESS.test(ref)) return undefined;
  return parseEvmAddress(ref) ? undefined : invalidAddress(field, chain);
}

/** The address in its canonical form for its chain kind (EIP-55 on EVM, as given on Solana), or null. */
export function parseAddress(kind: WalletChain, value: string): string | null {
  return kind === 'evm' ? parseEvmAddress(value) : parseSolanaAddress(value);
}

/**
 * The native and SPL programs and the sysvars of every Solana cluster. None can own tokens: a
 * transfer to one is lost (native SOL credited to an account no one can sign for) or fails.
 */
const SOLANA_PROGRAM_IDS: ReadonlySet<string> = new Set([
  // Native programs and loaders.
  '11111111111111111111111111111111',
  'NativeLoader1111111111111111111111111111111',
  'BPFLoader1111111111111111111111111111111111',
  'BPFLoader2111111111111111111111111111111111',
  'BPFLoaderUpgradeab1e11111111111111111111111',
  'LoaderV411111111111111111111111111111111111',
  'ComputeBudget111111111111111111111111111111',
  'AddressLookupTab1e1111111111111111111111111',
  'Config1111111111111111111111111111111111111',
  'Stake11111111111111111111111111111111111111',
  'StakeConfig11111111111111111111111111111111',
  'Vote111111111111111111111111111111111111111',
  'Feature111111111111111111111111111111111111',
  'Ed25519SigVerify111111111111111111111111111',
  'KeccakSecp256k11111111111111111111111111111',
  'Secp256r1SigVerify1111111111111111111111111',
  'ZkTokenProof1111111111111111111111111111111',
  'ZkE1Gama1Proof11111111111111111111111111111',
  // SPL programs.
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
  'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
  'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr',
  'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo',
  // Sysvars and their owner.
  'Sysvar1111111111111111111111111111111111111',
  'SysvarC1ock11111111111111111111111111111111',
  'SysvarEpochSchedu1e111111111111111111111111',
  'SysvarEpochRewards1111111111111111111111111',
  'SysvarFees111111111111111111111111111111111',
  'Sysvar1nstructions1111111111111111111111111',
  'SysvarLastRestartS1ot1111111111111111111111',
  'SysvarRecentB1ockHashes11111111111111111111',
  'SysvarRent111111111111111111111111111111111',
  'SysvarRewards111111111111111111111111111111',
  'SysvarS1otHashes111111111111111111111111111',
  'SysvarS1otHistory11111111111111111111111111',
  'SysvarStakeHistory1111111111111111111111111',
]);

/** True for a well-known Solana program id or sysvar (see above); a live chain is asked about the rest. */
export function isKnownSolanaProgram(address: string): boolean {
  return SOLANA_PROGRAM_IDS.has(address);
}

/** `<field> must be able to own tokens (not a program id)`: a Solana recipient that is a program or sysvar. */
export function notTokenOwner(field: string): string {
  return `${field} must be able to own tokens (not a program id)`;
}
