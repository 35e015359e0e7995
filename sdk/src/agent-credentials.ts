/**
 * How an agent authenticates: an API key (static), or an identity access token (the public onboarding and directory routes, identity access tokens) kept by `IdentityTokenCredential`, which onboards
 * again shortly before the token's `exp` (authentication rule 7: read 3600 s, trade 300 s) and
 * once more when the service calls it invalid. A refused onboarding is `provider_auth_error`:
 * `auth_error` always means a credential the agent held was refused.
 */
import type { CallOptions } from './call-options.js';
import { SdkError } from './errors.js';
import type { HttpTransport } from './http-transport.js';
import { type Erc8004Identity, type EvmSigner, jwtExpiryMs, registryChainId, siweMessage } from './signers.js';
import type { SdkClock } from './runtime.js';

const ONBOARDING = '/api/public/erc8004/onboarding';

export interface AgentCredential {
  /** The bearer token to send now (renewed first when needed). */
  token(options?: CallOptions): Promise<string>;
  /** After a 401: renew if this credential can; true when the call is worth one more try. */
  renewAfterRefusal(options?: CallOptions): Promise<boolean>;
  /** The agent's public id, when the credential names it (identity tokens do). */
  publicId?(): string | undefined;
}

/** An API key (`mcpk_…`): sent as it is; it cannot be renewed. */
export function apiKey(secret: string): AgentCredential {
  return { token: async () => secret, renewAfterRefusal: async () => false };
}

/**
 * An ERC-8004 registration file, the agent card's draft (the service keeps the last one sent):
 * the fields of `registrationSchema` in src/identity/onboarding/onboarding.schemas.ts.
 */
export interface Erc8004Registration {
  /** The registration type URI, e.g. `https://eips.ethereum.org/EIPS/eip-8004#registration-v1`. */
  type: string;
  name: string;
  description?: string;
  /** https, ipfs or data URL. */
  image?: string;
  services?: Array<{ name: string; endpoint: string; version?: string }>;
  active?: boolean;
  registrations?: Array<{ agentId: number | string; agentRegistry: string }>;
  supportedTrust?: string[];
}

/** The answer of both onboarding routes (201 for a new agent, 200 when the identity came back to its agent). */
export interface IdentityToken {
  agentId: string;
  publicId: string;
  accessToken: string;
  tokenType: 'Bearer';
  /** Seconds. */
  expiresIn: number;
  scope: 'read' | 'trade';
  jti: string;
  /** True for SIWA (the registry said the signer owns the ERC-8004 identity); false for SIWE and provider tokens. */
  verified: boolean;
}

/** Gets a fresh identity token (one onboarding exchange). */
export type Onboarding = (http: HttpTransport, options: CallOptions) => Promise<IdentityToken>;

export interface IdentityTokenOptions {
  onboarding: Onboarding;
  /** Renew this long before `exp` (ms), at most a fifth of the token's lifetime; default 60 000. */
  renewBeforeMs?: number;
}

export class IdentityTokenCredential implements AgentCredential {
  private current: { token: IdentityToken; expiresAt: number; renewAt: number } | undefined;
  private pending: Promise<IdentityToken> | undefined;
  /** How many tokens it obtained (first onboarding included). */
  renewals = 0;

  constructor(
    private readonly http: HttpTransport,
    private readonly clock: SdkClock,
    private readonly options: IdentityTokenOptions,
  ) {}

  /** The token now held (undefined before the first call). */
  get identity(): IdentityToken | undefined {
    return this.current?.token;
  }

  /** When the held token gets renewed (epoch ms). */
  get renewAt(): number | undefined {
    return this.current?.renewAt;
  }

  publicId(): string | undefined {
    return this.current?.token.publicId;
  }

  /**
   * Revokes the held token (`POST …/onboarding/tokens/revoke`): the service refuses it at once
   * and ends its event streams. The next call onboards again for a new token.
   */
  async revoke(options: CallOptions = {}): Promise<{ jti: string; revoked: true; revokedAt: string }> {
    const held = this.current;
    if (!held) throw new TypeError('No identity token to revoke');
    this.current = undefined;
    const answer = await this.http.send({
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxAttempts: options.maxAttempts,
      method: 'POST',
      path: `${ONBOARDING}/tokens/revoke`,
      body: { token: held.token.accessToken },
    });
    return answer.body as { jti: string; revoked: true; revokedAt: string };
  }

  async token(options: CallOptions = {}): Promise<string> {
    if (!this.current || this.clock.now() >= this.current.renewAt) await this.renew(options);
    return this.current!.token.accessToken;
  }

  async renewAfterRefusal(options: CallOptions = {}): Promise<boolean> {
    await this.renew(options);
    return true;
  }

  /** Onboards again now (one exchange however many callers wait for it). */
  async renew(options: CallOptions = {}): Promise<IdentityToken> {
    this.pending ??= (async () => {
      const issuedAt = this.clock.now();
      const token = await this.options.onboarding(this.http, options);
      const lifetimeMs = token.expiresIn * 1000;
      const expiresAt = jwtExpiryMs(token.accessToken) ?? issuedAt + lifetimeMs;
      const ahead = Math.min(this.options.renewBeforeMs ?? 60_000, lifetimeMs / 5);
      this.current = { token, expiresAt, renewAt: expiresAt - ahead };
      this.renewals++;
      return token;
    })().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }
}

export interface SiweOnboardingOptions {
  /** The agent's owner wallet, e.g. a viem account (EOA or, when the service has an RPC, an ERC-1271 contract wallet). */
  signer: EvmSigner;
  scope: 'read' | 'trade';
  /** The service's PUBLIC_URL (its host is the domain the message names). */
  publicUrl: string;
  /**
   * SIWA: the ERC-8004 identity the signer owns on a registry the service reads (`ERC8004_RPC_URLS`).
   * The service asks the registry's `ownerOf(agentId)`; the agent is then the one of this wallet and identity,
   * and the token `verified`. Without it: plain SIWE, the wallet's own agent. Either way its `agentId` (`agt_…`) is
   * unique in the service and is the token's `sub`.
   */
  erc8004?: Erc8004Identity;
  /** The message's `Chain ID`: default the registry's chain for SIWA, 1 otherwise (the service takes the EIP-155 id of each EVM chain in `CHAINS`). */
  chainId?: number;
  registration?: Erc8004Registration;
  statement?: string;
}

/**
 * Onboarding with the owner wallet's EIP-4361 signature, or its SIWA form for an ERC-8004
 * identity (`POST /api/public/erc8004/onboarding/siwe`). A refusal (401) is `provider_auth_error`.
 */
export function siweOnboarding(options: SiweOnboardingOptions): Onboarding {
  // A malformed registry is the caller's mistake: said at once, not at the first call.
  const registryChain = options.erc8004 ? registryChainId(options.erc8004.registry) : undefined;
  return async (http, call) => {
    const base = { signal: call.signal, timeoutMs: call.timeoutMs };
    const { nonce } = (
      await http.send({ ...base, method: 'POST', path: '/api/nest/auth/evm/nonce', body: { walletAddress: options.signer.address } })
    ).body as { nonce: string };
    const url = new URL(options.publicUrl);
    const message = siweMessage({
      domain: url.host,
      address: options.signer.address,
      uri: url.origin,
      chainId: options.chainId ?? registryChain ?? 1,
      nonce,
      issuedAt: new Date(http.runtime.clock.now()),
      statement: options.statement ?? `Onboard an agent at ${url.host}`,
      ...(options.erc8004 ? { agent: options.erc8004 } : {}),
    });
    const signature = await options.signer.signMessage({ message });
    const body = { message, signature, scope: options.scope, ...(options.registration ? { registration: options.registration } : {}) };
    // Not retried: the nonce is single use.
    return checkToken(
      (await http.send({ ...base, maxAttempts: 1, method: 'POST', path: `${ONBOARDING}/siwe`, body, providerAuth: true })).body,
    );
  };
}

export interface ProviderOnboardingOptions {
  /** The configured provider's name. */
  provider: string;
  /** The provider's JWT, or a function giving a fresh one each time the SDK renews (the last one may have expired). */
  providerToken: string | (() => Promise<string> | string);
  scope: 'read' | 'trade';
  /** One of several agents of this identity (3-128 of letters, digits, `.` `_` `:` `-`); default its one agent. */
  agentId?: string;
  registration?: Erc8004Registration;
}

/** Walletless onboarding with a provider's token (`POST /api/public/erc8004/onboarding/identity`); its 401 is `provider_auth_error`. */
export function providerOnboarding(options: ProviderOnboardingOptions): Onboarding {
  return async (http, call) => {
    const body = {
      provider: options.provider,
      providerToken: typeof options.providerToken === 'string' ? options.providerToken : await options.providerToken(),
      scope: options.scope,
      ...(options.agentId ? { agentId: options.agentId } : {}),
      ...(options.registration ? { registration: options.registration } : {}),
    };
    const answer = await http.send({
      signal: call.signal,
      timeoutMs: call.timeoutMs,
      maxAttempts: call.maxAttempts,
      method: 'POST',
      path: `${ONBOARDING}/identity`,
      body,
      providerAuth: true,
    });
    return checkToken(answer.body);
  };
}

function checkToken(body: unknown): IdentityToken {
  const token = body as Partial<IdentityToken> | null;
  if (!token || typeof token.accessToken !== 'string' || typeof token.expiresIn !== 'number' || typeof token.publicId !== 'string') {
    throw new SdkError('invalid_response', { status: 200, message: 'The onboarding answer carries no identity token', body });
  }
  return token as IdentityToken;
}
