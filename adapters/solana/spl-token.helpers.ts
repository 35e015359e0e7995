import { PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';

/**
 * The handful of SPL Token pieces the chain adapter needs, written against the programs'
 * published account layouts and instruction encodings so that no extra package
 * (`@solana/spl-token`) is needed. Both the classic Token program and Token-2022 share
 * these layouts for the base account and mint.
 */

export const TOKEN_PROGRAM_ID = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
export const TOKEN_2022_PROGRAM_ID = new PublicKey('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
const ASSOCIATED_TOKEN_PROGRAM_ID = new PublicKey('ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL');

/** Size of a token account's base layout; Token-2022 accounts with extensions are longer. */
export const TOKEN_ACCOUNT_SIZE = 165;
export const MINT_SIZE = 82;

/** Instruction tags of the Token program (`TokenInstruction`). */
const TRANSFER_CHECKED = 12;
/** `AssociatedTokenAccountInstruction::CreateIdempotent`. */
const CREATE_IDEMPOTENT = 1;

export function isTokenProgram(programId: PublicKey): boolean {
  return programId.equals(TOKEN_PROGRAM_ID) || programId.equals(TOKEN_2022_PROGRAM_ID);
}

/** The associated token account of `owner` for `mint` under `tokenProgram`. */
export function associatedTokenAddress(owner: PublicKey, mint: PublicKey, tokenProgram: PublicKey = TOKEN_PROGRAM_ID): PublicKey {
  return PublicKey.findProgramAddressSync([owner.toBuffer(), tokenProgram.toBuffer(), mint.toBuffer()], ASSOCIATED_TOKEN_PROGRAM_ID)[0];
}

export interface TokenAccountData {
  mint: PublicKey;
  owner: PublicKey;
  amount: bigint;
}

/** Mint, owner and amount of a token account (layout: mint 0..32, owner 32..64, amount u64 LE at 64). */
export function decodeTokenAccount(data: Uint8Array): TokenAccountData | null {
  if (data.length < TOKEN_ACCOUNT_SIZE) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return {
    mint: new PublicKey(data.subarray(0, 32)),
    owner: new PublicKey(data.subarray(32, 64)),
    amount: view.getBigUint64(64, true),
  };
}

/** Decimals of a mint (layout: mint authority option 0..36, supply 36..44, decimals at 44, initialized at 45). */
export function decodeMintDecimals(data: Uint8Array): number | null {
  if (data.length < MINT_SIZE || data[45] !== 1) return null;
  return data[44] ?? null;
}

/** `TransferChecked`: moves `amount` from `source` to `destination`, checking mint and decimals on chain. */
export function transferCheckedInstruction(args: {
  source: PublicKey;
  mint: PublicKey;
  destination: PublicKey;
  owner: PublicKey;
  amount: bigint;
  decimals: number;
  tokenProgram?: PublicKey;
}): TransactionInstruction {
  const data = Buffer.alloc(10);
  data.writeUInt8(TRANSFER_CHECKED, 0);
  data.writeBigUInt64LE(args.amount, 1);
  data.writeUInt8(args.decimals, 9);
  return new TransactionInstruction({
    programId: args.tokenProgram ?? TOKEN_PROGRAM_ID,
    keys: [
      { pubkey: args.source, isSigner: false, isWritable: true },
      { pubkey: args.mint, isSigner: false, isWritable: false },
      { pubkey: args.destination, isSigner: false, isWritable: true },
      { pubkey: args.owner, isSigner: true, isWritable: false },
    ],
    data,
  });
}

/** Creates `owner`'s associated token account for `mint` unless it exists (a no-op then, not an error). */
export function createAssociatedTokenAccountIdempotentInstruction(args: {
  payer: PublicKey;
  owner: PublicKey;
  mint: PublicKey;
  tokenProgram?: PublicKey;
}): TransactionInstruction {
  const tokenProgram = args.tokenProgram ?? TOKEN_PROGRAM_ID;
  return new TransactionInstruction({
    programId: ASSOCIATED_TOKEN_PROGRAM_ID,
    keys: [
      { pubkey: args.payer, isSigner: true, isWritable: true },
      { pubkey: associatedTokenAddress(args.owner, args.mint, tokenProgram), isSigner: false, isWritable: true },
      { pubkey: args.owner, isSigner: false, isWritable: false },
      { pubkey: args.mint, isSigner: false, isWritable: false },
      { pubkey: SystemProgram.programId, isSigner: false, isWritable: false },
      { pubkey: tokenProgram, isSigner: false, isWritable: false },
    ],
    data: Buffer.from([CREATE_IDEMPOTENT]),
  });
}
