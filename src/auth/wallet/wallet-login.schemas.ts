/**
 * Request bodies of the wallet sign-in routes (the auth routes). Exported so the routes and
 * `WalletLoginService` validate with the same schemas.
 */
import { z } from 'zod';
import { AppError } from '../../../kernel/errors/app-error.js';
import { validationMessages } from '../../../kernel/errors/validation-messages.js';
import { parseEvmAddress } from '../../../kernel/vocabulary/chain-address.js';
import { isSolanaAddress } from './siws.js';

/** Longer than any sign-in message we issue or EIP-4361 needs; caps parser work. */
const MAX_MESSAGE_CHARS = 4096;

const base58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

const SolanaAddressSchema = z.string().refine(isSolanaAddress, { message: 'must be a base58 Solana public key' });

/** Charset only: a base58 string of the wrong length is a bad signature (401), not a bad body. */
const SolanaSignatureSchema = z.string().min(1).max(128).regex(base58, { message: 'must be base58' });

const EvmAddressSchema = z.string().regex(/^0x[0-9a-fA-F]{40}$/, { message: 'must be a 0x-prefixed EVM address' });

/**
 * An EVM address a client names up front: all lower case, all upper case, or EIP-55
 * checksummed (a mixed case that fails its checksum is a typo, refused). Normalised to EIP-55.
 */
const EvmChecksummedAddressSchema = z
  .string()
  .refine((value) => parseEvmAddress(value) !== null, {
    message: 'must be a 0x-prefixed EVM address (lower case, upper case or EIP-55 checksummed)',
  })
  .transform((value) => parseEvmAddress(value) as `0x${string}`);

/** 65-byte EOA signatures and longer contract-wallet (ERC-1271/6492) ones. */
export const EvmSignatureSchema = z
  .string()
  .max(20_000)
  .regex(/^0x(?:[0-9a-fA-F]{2})+$/, { message: 'must be 0x-prefixed hex' })
  .transform((value) => value as `0x${string}`);

const MessageSchema = z.string().min(1).max(MAX_MESSAGE_CHARS);

/** `POST /api/nest/auth/nonce` */
export const SolanaNonceRequestSchema = z.object({ walletAddress: SolanaAddressSchema }).strict();

/** `POST /api/nest/auth/evm/nonce`: no body, `{}`, or `{walletAddress}` to bind the nonce. */
export const EvmNonceRequestSchema = z.object({ walletAddress: EvmChecksummedAddressSchema.optional() }).strict();

/** `POST /api/nest/auth/login` */
export const SolanaLoginRequestSchema = z
  .object({
    message: MessageSchema,
    signature: SolanaSignatureSchema,
    walletAddress: SolanaAddressSchema,
  })
  .strict();

/** `POST /api/nest/auth/evm/login`; `walletAddress` is optional because the message names it. */
export const EvmLoginRequestSchema = z
  .object({
    message: MessageSchema,
    signature: EvmSignatureSchema,
    walletAddress: EvmAddressSchema.optional(),
  })
  .strict();

/** Parses or throws a 400 validation AppError in the service's one wording (`validationMessages`). */
export function parseWalletInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return result.data;
  throw AppError.validation(validationMessages(result.error));
}
