/**
 * Wallet sign-in (the auth routes and authentication rule 1): issue a nonce, then accept a signed SIWS / SIWE
 * message that carries it. The HTTP routes call this and turn the result into a session.
 * Order inside a login: everything that proves the signer (format, domain, address,
 * signature, times) runs before the nonce is consumed, so a forged request cannot burn
 * someone else's nonce.
 * Which site a message names: the service's origin (PUBLIC_URL) unless the caller passes
 * another one (the chat widget: its session's origin, already checked against the bot's
 * allowed origins), and a message is accepted only for the origin its sign-in expects
 * (message-uri.ts). The REST login routes pass none.
 */
import { createSiweMessage } from 'viem/siwe';
import type { ClockPort } from '../../../kernel/ports/clock.port.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { EVM_CHAIN_IDS } from '../../../kernel/ports/venue.port.js';
import type { NonceService } from './nonce.service.js';
import { checkMessageTimes } from './message-times.js';
import { requirePurpose, type MessagePurpose } from './message-purpose.js';
import { isOnOrigin, signInTarget, type SignInTarget } from './message-uri.js';
import { verifySiweMessage, type EvmSignatureClient, type VerifiedSiwe } from './siwe.js';
import { buildSiwsMessage, parseSiwsMessage, SiwsFormatError, verifySiwsSignature, type SiwsFields } from './siws.js';
import { malformedMessageError, WALLET_AUTH_MESSAGES, walletAuthError, wrongSiteError } from './wallet-auth.errors.js';
import {
  EvmLoginRequestSchema,
  EvmNonceRequestSchema,
  parseWalletInput,
  SolanaLoginRequestSchema,
  SolanaNonceRequestSchema,
} from './wallet-login.schemas.js';

export interface WalletLoginServiceOptions {
  nonces: NonceService;
  clock: ClockPort;
  /**
   * The service's origin (PUBLIC_URL), e.g. `https://agents.example.com`. Its host is the
   * `domain` messages must name, and their `URI` must be on it (scheme included).
   */
  publicUrl: string;
  /** Enables ERC-1271 / ERC-6492 contract-wallet signatures (viem `PublicClient`). */
  evmPublicClient?: EvmSignatureClient;
  /** EIP-155 chain ids SIWE messages may name; default the EVM chains the service serves. */
  evmChainIds?: readonly number[];
  /** `Chain ID` of SIWS messages; defaults to `mainnet`. */
  solanaChainId?: string;
  statement?: string;
}

export interface SolanaChallenge {
  nonce: string;
  /** ISO 8601. */
  expiresAt: string;
  /** The exact SIWS text the wallet must sign. */
  message: string;
}

export interface EvmChallenge {
  nonce: string;
  expiresAt: string;
}

export interface WalletLoginResult {
  /** base58 for Solana; EIP-55 checksummed hex for EVM. */
  walletAddress: string;
}

const DEFAULT_SIWS_STATEMENT = 'Sign in to the agent service';

/** The EVM chains the service serves (ports/venue.port.ts): a SIWE sign-in names one of them. */
const SERVED_EVM_CHAIN_IDS: readonly number[] = Object.values(EVM_CHAIN_IDS);

/** Wallet sign-in core; inputs are `unknown` because they are request bodies. */
export class WalletLoginService {
  private readonly nonces: NonceService;
  private readonly clock: ClockPort;
  /** The service's own origin and host (PUBLIC_URL): what every sign-in names unless told otherwise. */
  private readonly service: SignInTarget;
  private readonly solanaChainId: string;
  private readonly statement: string;
  private readonly evmPublicClient: EvmSignatureClient | undefined;
  private readonly evmChainIds: readonly number[];

  constructor(options: WalletLoginServiceOptions) {
    this.nonces = options.nonces;
    this.clock = options.clock;
    this.service = signInTarget(options.publicUrl);
    this.solanaChainId = options.solanaChainId ?? 'mainnet';
    this.statement = options.statement ?? DEFAULT_SIWS_STATEMENT;
    this.evmPublicClient = options.evmPublicClient;
    this.evmChainIds = options.evmChainIds ?? SERVED_EVM_CHAIN_IDS;
  }

  /**
   * Issues a nonce bound to the body's `walletAddress` and the SIWS message to sign with it,
   * naming `origin` (default the service's): the page that will ask the wallet to sign.
   * `statement` (default a sign-in's) says what the signature is for (message-purpose.ts).
   */
  async startSolana(body: unknown, origin?: string, statement = this.statement): Promise<SolanaChallenge> {
    const { walletAddress: address } = parseWalletInput(SolanaNonceRequestSchema, body);
    const target = this.target(origin);
    const issued = await this.nonces.issue('solana', address);
    const message = buildSiwsMessage({
      domain: target.domain,
      address,
      statement,
      uri: target.origin,
      version: '1',
      chainId: this.solanaChainId,
      nonce: issued.nonce,
      issuedAt: new Date(this.clock.now()).toISOString(),
      expirationTime: issued.expiresAt,
    });
    return { nonce: issued.nonce, expiresAt: issued.expiresAt, message };
  }

  /** Verifies a signed SIWS message for `walletAddress`, then consumes its nonce. */
  async loginSolana(body: unknown): Promise<WalletLoginResult> {
    const { message, signature, walletAddress } = parseWalletInput(SolanaLoginRequestSchema, body);
    requirePurpose(message, 'sign-in');
    await this.verifySolana(message, signature, walletAddress, this.service);
    return { walletAddress };
  }

  /**
   * Verifies a fresh signed SIWS (base58 signature) or EIP-4361 (0x signature) message as a
   * sign-in does — domain and URI of `input.origin` (default the service's), chain,
   * signature, times — runs `beforeConsume`, then spends the nonce: a refused proof leaves
   * the nonce for a corrected retry. The message must have been made for `input.purpose`.
   */
  async prove(input: ProveWalletInput): Promise<ProvenWallet> {
    requirePurpose(input.message, input.purpose);
    return SIWS_HEADER.test(input.message) ? this.proveSolana(input) : this.proveEvm(input);
  }

  /** `prove` for a SIWS message: the signer is the message's address. */
  private async proveSolana(input: ProveWalletInput): Promise<ProvenWallet> {
    const address = parseSiws(input.message).address;
    if (!/^[1-9A-HJ-NP-Za-km-z]{1,128}$/.test(input.signature))
      throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'signature not base58');
    let proven: ProvenWallet | undefined;
    await this.verifySolana(input.message, input.signature, address, this.target(input.origin), async (fields) => {
      proven = { chain: 'solana', address, ...(fields.statement ? { statement: fields.statement } : {}) };
      await input.beforeConsume(proven);
    });
    return proven!;
  }

  /** `prove` for an EIP-4361 message. */
  private async proveEvm(input: ProveWalletInput): Promise<ProvenWallet> {
    if (!/^0x(?:[0-9a-fA-F]{2}){1,10000}$/.test(input.signature))
      throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'signature not hex');
    let proven: ProvenWallet | undefined;
    await this.checkEvm(this.target(input.origin), {
      message: input.message,
      signature: input.signature as `0x${string}`,
      beforeConsume: async (verified) => {
        proven = { chain: 'evm', address: verified.address, ...(verified.statement ? { statement: verified.statement } : {}) };
        await input.beforeConsume(proven);
      },
    });
    return proven!;
  }

  /** The checks of a SIWS sign-in on `target` for `walletAddress`, then `beforeConsume`, then the nonce is consumed. */
  private async verifySolana(
    message: string,
    signature: string,
    walletAddress: string,
    target: SignInTarget,
    beforeConsume?: (fields: SiwsFields) => Promise<void>,
  ): Promise<void> {
    const fields = parseSiws(message);
    if (fields.domain !== target.domain) throw wrongSiteError('domain mismatch', target);
    if (!isOnOrigin(fields.uri, target.origin)) throw wrongSiteError('uri not on the expected origin', target);
    // Address before signature: a signature checked against the body's address would fail
    // anyway, and the caller learns the real problem.
    if (fields.address !== walletAddress) throw walletAuthError(WALLET_AUTH_MESSAGES.addressMismatch);
    if (!verifySiwsSignature(message, signature, walletAddress)) {
      throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'bad signature');
    }
    if (fields.chainId !== this.solanaChainId) {
      throw walletAuthError(WALLET_AUTH_MESSAGES.unauthorized, 'chain id mismatch');
    }
    checkMessageTimes(fields, this.clock.now());
    await beforeConsume?.(fields);
    await this.nonces.consume('solana', fields.nonce, walletAddress, Date.parse(fields.issuedAt));
  }

  /**
   * Issues an EVM nonce; the client builds the EIP-4361 message around it. With a body
   * `walletAddress` the nonce is bound to that wallet, as on the Solana route: a login
   * signed by any other address is refused.
   */
  async startEvm(body: unknown = {}): Promise<EvmChallenge> {
    const { walletAddress } = parseWalletInput(EvmNonceRequestSchema, body);
    const { nonce, expiresAt } = await this.nonces.issue('evm', walletAddress);
    return { nonce, expiresAt };
  }

  /**
   * An EVM nonce bound to `walletAddress` with the EIP-4361 message to sign around it, built
   * here as the Solana route builds its own: for clients that carry no SIWE builder (the chat
   * widget). It names `origin` (default the service's); its checks at login are those of
   * every EVM sign-in on that origin.
   */
  async startEvmMessage(body: unknown, origin?: string, statement = this.statement): Promise<SolanaChallenge> {
    const { walletAddress } = parseWalletInput(EvmNonceRequestSchema, body);
    if (walletAddress === undefined) throw AppError.validation(['walletAddress should not be empty']);
    const target = this.target(origin);
    const issued = await this.nonces.issue('evm', walletAddress);
    const message = createSiweMessage({
      domain: target.domain,
      address: walletAddress as `0x${string}`,
      statement,
      uri: target.origin,
      version: '1',
      chainId: this.evmChainIds[0] ?? 1,
      nonce: issued.nonce,
      issuedAt: new Date(this.clock.now()),
      expirationTime: new Date(issued.expiresAt),
    });
    return { nonce: issued.nonce, expiresAt: issued.expiresAt, message };
  }

  /** Verifies a signed SIWE message (and `walletAddress` when given), then consumes its nonce. */
  async loginEvm(body: unknown): Promise<WalletLoginResult> {
    const { message, signature, walletAddress } = parseWalletInput(EvmLoginRequestSchema, body);
    requirePurpose(message, 'sign-in');
    const verified = await this.verifyEvm({ message, signature, ...(walletAddress === undefined ? {} : { walletAddress }) });
    return { walletAddress: verified.address };
  }

  /**
   * The checks of an EVM sign-in on the service's origin (domain, URI, chain, signature,
   * times), then the nonce is consumed: for sign-in and for ERC-8004 onboarding alike.
   * `signedMessage` is the text the wallet signed when `message` is its EIP-4361 part (SIWA);
   * `extraChainIds` are chains allowed besides the served ones (an identity registry's chain).
   */
  verifyEvm(input: EvmVerifyInput): Promise<VerifiedSiwe> {
    return this.checkEvm(this.service, input);
  }

  /** `verifyEvm` for a message that must name `target`. */
  private async checkEvm(target: SignInTarget, input: EvmVerifyInput): Promise<VerifiedSiwe> {
    const verified = await verifySiweMessage({
      message: input.message,
      signature: input.signature,
      expectedDomain: target.domain,
      expectedOrigin: target.origin,
      allowedChainIds: input.extraChainIds ? [...this.evmChainIds, ...input.extraChainIds] : this.evmChainIds,
      now: this.clock.now(),
      ...(input.walletAddress === undefined ? {} : { expectedAddress: input.walletAddress }),
      ...(input.signedMessage === undefined ? {} : { signedMessage: input.signedMessage }),
      ...(this.evmPublicClient === undefined ? {} : { publicClient: this.evmPublicClient }),
    });
    await input.beforeConsume?.(verified);
    await this.nonces.consume('evm', verified.nonce, verified.address, verified.issuedAt);
    return verified;
  }

  /** The service's own target, or that of `origin` (a widget session's, already normalised and allowed). */
  private target(origin: string | undefined): SignInTarget {
    return origin === undefined ? this.service : signInTarget(origin);
  }
}

interface EvmVerifyInput {
  message: string;
  signature: `0x${string}`;
  walletAddress?: string;
  signedMessage?: string;
  extraChainIds?: readonly number[];
  /** Further checks of the signer (an on-chain ownership) that must pass before the nonce is spent. */
  beforeConsume?: (verified: VerifiedSiwe) => Promise<void>;
}

/** A wallet proven by a signed sign-in message (SIWS or EIP-4361), for checks beyond sign-in (a claim). */
export interface ProvenWallet {
  chain: 'solana' | 'evm';
  /** base58 for Solana; EIP-55 checksummed for EVM. */
  address: string;
  statement?: string;
}

/** The sign-in message formats, told apart by their first line. */
const SIWS_HEADER = /^[^\n]* wants you to sign in with your Solana account:\n/;

export interface ProveWalletInput {
  message: string;
  signature: string;
  /**
   * The origin of the page that asked the wallet to sign, when it is not the service's: the
   * message must name exactly it. Only the chat widget passes one (its session's origin).
   */
  origin?: string;
  /** What the message must have been made for: a claim of an agent, or the bot owner's sign-in in a widget. */
  purpose: Extract<MessagePurpose, 'claim' | 'widget'>;
  /** Checks of the proven wallet (whose agent, which statement) that must pass before the nonce is spent. */
  beforeConsume: (wallet: ProvenWallet) => Promise<void>;
}

function parseSiws(message: string): SiwsFields {
  try {
    return parseSiwsMessage(message);
  } catch (error) {
    if (error instanceof SiwsFormatError) throw malformedMessageError('SIWS', error.message);
    throw error;
  }
}
