/**
 * Sign-In With Ethereum (EIP-4361) verification. `siwe`'s `SiweMessage` parses the text with
 * its strict ABNF grammar (including the EIP-55 checksum of the address); the signature is
 * checked with viem, not with `SiweMessage.verify`, which needs ethers and re-serialises the
 * message instead of checking the bytes the wallet signed.
 * Note: importing `siwe` still loads ethers (its utils require it eagerly), so ethers stays
 * installed; only siwe's parser runs here.
 */
import { SiweMessage } from 'siwe';
import { getAddress, recoverMessageAddress, verifyMessage, type Address, type Hex } from 'viem';
import { AppError } from '../../../kernel/errors/app-error.js';
import { malformedMessageError, WALLET_AUTH_MESSAGES, walletAuthError, wrongSiteError } from './wallet-auth.errors.js';
import { checkMessageTimes } from './message-times.js';
import { isOnOrigin } from './message-uri.js';

/**
 * The part of a viem `PublicClient` used for contract wallets (ERC-1271 / ERC-6492); a
 * structural type so callers can pass any client and tests a stub.
 */
export interface EvmSignatureClient {
  chain?: { id: number } | undefined;
  verifyMessage(args: { address: Address; message: string; signature: Hex }): Promise<boolean>;
}

export interface VerifySiweInput {
  message: string;
  signature: Hex;
  /** The host of the page the sign-in is for; the message must name exactly it (phishing protection of EIP-4361). */
  expectedDomain: string;
  /** That page's origin (PUBLIC_URL, or a widget session's); the message's `URI` must be on it (message-uri.ts). */
  expectedOrigin: string;
  /** Epoch ms from the service clock. */
  now: number;
  /** When given, the message must be signed by this address (any checksum casing). */
  expectedAddress?: string;
  /** The EIP-155 chains the service serves; the message's `Chain ID` must be one of them. */
  allowedChainIds: readonly number[];
  /** Enables contract-wallet signatures; EOAs are always checked offline first. */
  publicClient?: EvmSignatureClient;
  /**
   * The text the wallet signed, when `message` is the EIP-4361 part of a larger form (SIWA:
   * the same message plus `Agent ID` / `Agent Registry` lines). Default: `message`.
   */
  signedMessage?: string;
}

export interface VerifiedSiwe {
  /** EIP-55 checksummed. */
  address: Address;
  nonce: string;
  chainId: number;
  domain: string;
  /** The message's `Issued At`, epoch ms (checked against the nonce when it is consumed). */
  issuedAt: number;
  statement?: string;
}

/**
 * Parses and checks a SIWE message and its signature; does NOT consume the nonce.
 * Throws 400 for text that is not EIP-4361, 401 (the auth and key errors messages) otherwise.
 */
export async function verifySiweMessage(input: VerifySiweInput): Promise<VerifiedSiwe> {
  const parsed = parseSiwe(input.message);
  const site = { domain: input.expectedDomain, origin: input.expectedOrigin };
  if (parsed.domain !== site.domain) throw wrongSiteError('domain mismatch', site);
  if (!isOnOrigin(parsed.uri, site.origin)) throw wrongSiteError('uri not on the expected origin', site);
  if (!parsed.nonce) throw walletAuthError(WALLET_AUTH_MESSAGES.invalidNonce, 'no nonce');
  const address = getAddress(parsed.address);
  // Address before signature: a bad signature over someone else's message is a mismatch.
  if (input.expectedAddress !== undefined && input.expectedAddress.toLowerCase() !== address.toLowerCase()) {
    throw walletAuthError(WALLET_AUTH_MESSAGES.addressMismatch);
  }
  if (!input.allowedChainIds.includes(parsed.chainId)) {
    throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'chain id not served');
  }
  const signed = input.signedMessage ?? input.message;
  if (!(await isValidSignature(address, signed, input.signature, parsed.chainId, input.publicClient))) {
    // A well-formed signature of the text by another key (the auth and key errors: the address differs
    // from the signer); bytes that are no signature at all are just unauthorized.
    const signer = await recoverMessageAddress({ message: signed, signature: input.signature }).catch(() => undefined);
    if (signer !== undefined) throw walletAuthError(WALLET_AUTH_MESSAGES.addressMismatch, 'signed by another key');
    throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'bad signature');
  }
  checkMessageTimes(parsed, input.now);
  // EIP-4361 requires `Issued At` and the parser enforces RFC 3339, so this is a number.
  const issuedAt = Date.parse(parsed.issuedAt ?? '');
  if (Number.isNaN(issuedAt)) throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'no issued at');
  return {
    address,
    nonce: parsed.nonce,
    chainId: parsed.chainId,
    domain: parsed.domain,
    issuedAt,
    ...(parsed.statement ? { statement: parsed.statement } : {}),
  };
}

function parseSiwe(text: string): SiweMessage {
  try {
    return new SiweMessage(text);
  } catch (error) {
    throw malformedMessageError('SIWE', error instanceof Error ? error.message.slice(0, 200) : undefined);
  }
}

async function isValidSignature(
  address: Address,
  message: string,
  signature: Hex,
  chainId: number,
  client: EvmSignatureClient | undefined,
): Promise<boolean> {
  // EOAs first, offline: no RPC round trip for the common case.
  if (await safely(() => verifyMessage({ address, message, signature }))) return true;
  // A contract wallet only exists on its chain; a client on another chain cannot vouch for it.
  if (!client || (client.chain !== undefined && client.chain.id !== chainId)) return false;
  try {
    // viem answers false for a failed verification and throws only when the RPC fails.
    return await client.verifyMessage({ address, message, signature });
  } catch (error) {
    throw new AppError('DEPENDENCY_UNAVAILABLE', 'Signature verification unavailable', { cause: error });
  }
}

async function safely(check: () => Promise<boolean>): Promise<boolean> {
  try {
    return await check();
  } catch {
    // A signature that is not even well formed is simply not a valid one.
    return false;
  }
}
