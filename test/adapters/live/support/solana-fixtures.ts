import { Keypair, type PublicKey } from '@solana/web3.js';
import type { WalletSigner } from '../../../../kernel/ports/venue.port.js';
import { MINT_SIZE, TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM_ID, associatedTokenAddress } from '../../../../adapters/solana/spl-token.helpers.js';
import type { LiteSvmRpc } from './litesvm-rpc.js';

/** A custodial-wallet signer over a test keypair; hands out a copy of the key and wipes it after. */
export function solanaSigner(keypair: Keypair, walletId = 'wallet-sol'): WalletSigner & { uses: number } {
  const signer = {
    walletId,
    chain: 'solana' as const,
    address: keypair.publicKey.toBase58(),
    uses: 0,
    async withSecretKey<T>(use: (secretKey: Uint8Array) => Promise<T>): Promise<T> {
      signer.uses++;
      const copy = Uint8Array.from(keypair.secretKey);
      try {
        return await use(copy);
      } finally {
        copy.fill(0);
      }
    },
  };
  return signer;
}

/** Writes an initialized SPL mint (classic Token program) straight into the ledger. */
export function createMint(rpc: LiteSvmRpc, decimals: number, authority: PublicKey = Keypair.generate().publicKey): PublicKey {
  const mint = Keypair.generate().publicKey;
  const data = new Uint8Array(MINT_SIZE);
  const view = new DataView(data.buffer);
  view.setUint32(0, 1, true); // mint authority: Some
  data.set(authority.toBytes(), 4);
  data[44] = decimals;
  data[45] = 1; // initialized
  rpc.setAccount(mint, { data, lamports: rpc.minimumBalanceForRentExemption(MINT_SIZE), owner: TOKEN_PROGRAM_ID });
  return mint;
}

/** Writes `owner`'s associated token account for `mint` holding `amount`. */
export function setTokenBalance(rpc: LiteSvmRpc, owner: PublicKey, mint: PublicKey, amount: bigint): PublicKey {
  const address = associatedTokenAddress(owner, mint);
  const data = new Uint8Array(TOKEN_ACCOUNT_SIZE);
  const view = new DataView(data.buffer);
  data.set(mint.toBytes(), 0);
  data.set(owner.toBytes(), 32);
  view.setBigUint64(64, amount, true);
  data[108] = 1; // state: initialized
  rpc.setAccount(address, { data, lamports: rpc.minimumBalanceForRentExemption(TOKEN_ACCOUNT_SIZE), owner: TOKEN_PROGRAM_ID });
  return address;
}
