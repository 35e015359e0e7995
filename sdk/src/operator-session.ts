/**
 * An operator's session (the auth routes, sessions): wallet sign-in, the access
 * token renewed with the refresh token before it expires, and the CSRF token every mutating
 * call carries (fetched after login; fetched again once when the service calls it invalid).
 * The service also keeps the refresh token in an HttpOnly cookie on its refresh route: a
 * browser page can leave it there (`sessionCookie`) and pick the session up after a reload.
 */
import { SdkError } from './errors.js';
import type { HttpAnswer, HttpRequest, HttpTransport } from './http-transport.js';
import { base58 } from './base58.js';
import { type EvmSigner, jwtExpiryMs, type SolanaSigner, siweMessage } from './signers.js';
import type { CallOptions } from './call-options.js';

export interface SessionUser {
  id: string;
  walletAddress: string;
}

export interface LoginResult {
  accessToken: string;
  refreshToken: string;
  user: SessionUser;
}

export interface EvmSignInOptions extends CallOptions {
  /** A chain the service serves (1, 8453 or 42161); default 1. */
  chainId?: number;
  /** Default `Sign in to <domain>`. */
  statement?: string;
}

/** A signed sign-in message: SIWS with a base58 signature, or EIP-4361 with a 0x signature. */
export interface SignedMessage {
  message: string;
  signature: string;
}

/** How a session renews and ends (`OperatorClientOptions`). */
export interface SessionOptions {
  /**
   * Browsers on the service's origin: never hold the refresh token in the page; every refresh
   * presents the service's HttpOnly cookie instead, so each tab (and the page after a reload)
   * renews from the one token the cookie holds (`resume`).
   */
  sessionCookie?: boolean;
  /**
   * Runs each refresh from the cookie alone, across tabs (e.g. `navigator.locks`): two tabs
   * presenting one cookie at once would read as reuse, and reuse ends the session.
   */
  refreshLock?: <T>(run: () => Promise<T>) => Promise<T>;
  /** Called once the service says the session is over (signed out elsewhere, refresh refused). */
  onSessionEnded?: () => void;
}

/** What the session holds: no refresh token when the cookie keeps it. */
type HeldTokens = Omit<LoginResult, 'refreshToken'> & { refreshToken?: string };

const REFRESH_PATH = '/api/nest/auth/refresh';
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const notSignedIn = () => new SdkError('auth_error', { status: 0, message: 'Not signed in' });

/** Base58 has no `0`, so a `0x` address can only be an EVM signer's. */
const isEvmSigner = (signer: SolanaSigner | EvmSigner): signer is EvmSigner => signer.address.startsWith('0x');

/**
 * The service's SIWS message with its statement (the line between two blank lines after the
 * address) replaced by `statement`, or `statement` added when it has none; a line break in
 * `statement` would forge the fields after it, so it is refused.
 */
export function withSiwsStatement(message: string, statement: string): string {
  if (/[\r\n]/.test(statement)) throw new TypeError('A statement is one line');
  const lines = message.split('\n');
  if (lines[2] !== '') throw new TypeError('Not a SIWS message: no blank line after the address');
  if (lines[4] === '') lines[3] = statement;
  else lines.splice(3, 0, statement, '');
  return lines.join('\n');
}

export class OperatorSession {
  private tokens: HeldTokens | undefined;
  private csrf: string | undefined;
  private refreshing: Promise<void> | undefined;

  constructor(
    private readonly http: HttpTransport,
    /** The service's PUBLIC_URL: its host is the domain EIP-4361 messages name. */
    private readonly publicUrl: string,
    /** Refresh this long before the access token expires (ms). */
    private readonly refreshBeforeMs: number,
    private readonly options: SessionOptions = {},
  ) {}

  get user(): SessionUser {
    if (!this.tokens) throw notSignedIn();
    return this.tokens.user;
  }

  get signedIn(): boolean {
    return this.tokens !== undefined;
  }

  /** SIWS: the service hands out the exact text to sign. */
  async signInWithSolana(signer: SolanaSigner, options: CallOptions = {}): Promise<SessionUser> {
    this.tokens = undefined;
    const preLogin = await this.preLoginCsrf(options);
    const challenge = (
      await this.http.send({ ...this.base(options), method: 'POST', path: '/api/nest/auth/nonce', body: { walletAddress: signer.address } })
    ).body as { message: string };
    const signature = base58(await signer.signMessage(new TextEncoder().encode(challenge.message)));
    return this.login('/api/nest/auth/login', { message: challenge.message, signature, walletAddress: signer.address }, preLogin, options);
  }

  /** SIWE (EIP-4361): the SDK builds the message around the service's nonce. */
  async signInWithEthereum(signer: EvmSigner, options: EvmSignInOptions = {}): Promise<SessionUser> {
    this.tokens = undefined;
    const preLogin = await this.preLoginCsrf(options);
    const statement = options.statement ?? `Sign in to ${new URL(this.publicUrl).host}`;
    const { message, signature } = await this.signEvm(signer, statement, options);
    return this.login('/api/nest/auth/evm/login', { message, signature }, preLogin, options);
  }

  /**
   * A fresh sign-in message whose statement is `statement`, signed by `signer`: what the
   * control plane's claim takes as proof of a wallet. SIWS when the signer's address is
   * base58 (the service's own message, its statement replaced), EIP-4361 when it is 0x hex.
   */
  async signedStatement(signer: SolanaSigner | EvmSigner, statement: string, options: EvmSignInOptions = {}): Promise<SignedMessage> {
    if (isEvmSigner(signer)) return this.signEvm(signer, statement, options);
    const challenge = (
      await this.http.send({ ...this.base(options), method: 'POST', path: '/api/nest/auth/nonce', body: { walletAddress: signer.address } })
    ).body as { message: string };
    const message = withSiwsStatement(challenge.message, statement);
    return { message, signature: base58(await signer.signMessage(new TextEncoder().encode(message))) };
  }

  private async signEvm(signer: EvmSigner, statement: string, options: EvmSignInOptions): Promise<SignedMessage> {
    const { nonce } = (
      await this.http.send({
        ...this.base(options),
        method: 'POST',
        path: '/api/nest/auth/evm/nonce',
        body: { walletAddress: signer.address },
      })
    ).body as { nonce: string };
    const url = new URL(this.publicUrl);
    const message = siweMessage({
      domain: url.host,
      address: signer.address,
      uri: url.origin,
      chainId: options.chainId ?? 1,
      nonce,
      issuedAt: new Date(this.http.runtime.clock.now()),
      statement,
    });
    return { message, signature: await signer.signMessage({ message }) };
  }

  /** Ends the session on the service (its refresh-token family is revoked). */
  async signOut(options: CallOptions = {}): Promise<void> {
    await this.request({ ...this.base(options), method: 'POST', path: '/api/nest/auth/logout' });
    this.tokens = undefined;
    this.csrf = undefined;
  }

  /**
   * The session the service's refresh cookie holds (after a reload, in a new tab): the user,
   * or undefined when there is none (no cookie, or one the service refused).
   */
  async resume(options: CallOptions = {}): Promise<SessionUser | undefined> {
    try {
      await this.refresh(options);
    } catch (error) {
      if (error instanceof SdkError && error.status === 401) return undefined;
      throw error;
    }
    await this.sessionCsrf(options);
    return this.user;
  }

  /** Renews the access token now (rotating the refresh token): from the one held, else from the cookie. */
  async refresh(options: CallOptions = {}): Promise<void> {
    this.refreshing ??= this.renew(options).finally(() => {
      this.refreshing = undefined;
    });
    return this.refreshing;
  }

  private async renew(options: CallOptions): Promise<void> {
    const held = this.options.sessionCookie ? undefined : this.tokens?.refreshToken;
    let answer: HttpAnswer;
    try {
      answer = held === undefined ? await this.refreshFromCookie(options) : await this.send(REFRESH_PATH, { refreshToken: held }, options);
    } catch (error) {
      if (error instanceof SdkError && error.status === 401) this.ended();
      throw error;
    }
    const result = answer.body as LoginResult;
    this.tokens = this.options.sessionCookie ? { accessToken: result.accessToken, user: result.user } : result;
  }

  /** The browser (or this transport's jar) presents the cookie; the pre-login CSRF token shows the request is the page's own. */
  private refreshFromCookie(options: CallOptions): Promise<HttpAnswer> {
    const lock = this.options.refreshLock ?? ((run) => run());
    return lock(async () => {
      const csrf = await this.preLoginCsrf(options);
      return this.send(REFRESH_PATH, {}, options, { 'x-csrf-token': csrf });
    });
  }

  private send(path: string, body: unknown, options: CallOptions, headers: Record<string, string> = {}): Promise<HttpAnswer> {
    return this.http.send({ ...this.base(options), method: 'POST', path, body, headers: () => headers });
  }

  /** The service ended the session: forget it, and say so once. */
  private ended(): void {
    if (!this.tokens) return;
    this.tokens = undefined;
    this.csrf = undefined;
    this.options.onSessionEnded?.();
  }

  /** The access token, renewed first when it expires within `refreshBeforeMs`. */
  async accessToken(options: CallOptions = {}): Promise<string> {
    if (!this.tokens) throw notSignedIn();
    const expiry = jwtExpiryMs(this.tokens.accessToken);
    if (expiry !== undefined && this.http.runtime.clock.now() >= expiry - this.refreshBeforeMs) await this.refresh(options);
    return this.tokens.accessToken;
  }

  /** A call with the session: bearer always, CSRF on mutating methods; one fresh CSRF token and one refresh when the service refuses them. */
  async request(request: HttpRequest): Promise<HttpAnswer> {
    const headers = async (): Promise<Record<string, string>> => ({
      authorization: `Bearer ${await this.accessToken({ signal: request.signal } as CallOptions)}`,
      ...(MUTATING.has(request.method) && this.csrf ? { 'x-csrf-token': this.csrf } : {}),
      ...(await request.headers?.()),
    });
    try {
      return await this.http.send({ ...request, headers });
    } catch (error) {
      if (!(error instanceof SdkError)) throw error;
      if (error.code === 'policy_error' && MUTATING.has(request.method) && /CSRF|^Forbidden$/.test(error.message)) {
        await this.sessionCsrf(request);
        return this.http.send({ ...request, headers });
      }
      if (error.code === 'auth_error' && error.message === 'Token expired') {
        await this.refresh(request);
        return this.http.send({ ...request, headers });
      }
      if (error.status === 401) await this.checkEnded(request);
      throw error;
    }
  }

  /** A 401 on a live-looking session: ask the service whether the session itself is over (logout elsewhere, reuse). */
  private async checkEnded(options: CallOptions | HttpRequest): Promise<void> {
    const access = this.tokens?.accessToken;
    if (!access) return;
    const answer = await this.http
      .send({
        signal: options.signal,
        timeoutMs: options.timeoutMs,
        maxAttempts: 1,
        method: 'POST',
        path: '/api/nest/auth/verify',
        headers: () => ({ authorization: `Bearer ${access}` }),
      })
      .catch((error: unknown) => error);
    if (answer instanceof SdkError && answer.status === 401 && this.tokens?.accessToken === access) this.ended();
  }

  private base(options: CallOptions): Pick<HttpRequest, 'signal' | 'timeoutMs' | 'maxAttempts' | 'withCookies'> {
    return { signal: options.signal, timeoutMs: options.timeoutMs, maxAttempts: options.maxAttempts, withCookies: true };
  }

  /** Before login the CSRF token is bound to a cookie the service sets (the transport or the browser keeps it). */
  private async preLoginCsrf(options: CallOptions): Promise<string> {
    const answer = await this.http.send({ ...this.base(options), method: 'GET', path: '/api/nest/auth/csrf' });
    return (answer.body as { csrfToken: string }).csrfToken;
  }

  private async login(path: string, body: unknown, preLogin: string, options: CallOptions): Promise<SessionUser> {
    // A login is not retried: a nonce is single use.
    const answer = await this.http.send({
      ...this.base(options),
      maxAttempts: 1,
      method: 'POST',
      path,
      body,
      headers: () => ({ 'x-csrf-token': preLogin }),
    });
    const result = answer.body as LoginResult;
    this.tokens = this.options.sessionCookie ? { accessToken: result.accessToken, user: result.user } : result;
    await this.sessionCsrf(options);
    return result.user;
  }

  /** After login the CSRF token is bound to the session. */
  private async sessionCsrf(options: CallOptions | HttpRequest): Promise<void> {
    const answer = await this.http.send({
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      method: 'GET',
      path: '/api/nest/auth/csrf',
      headers: async () => ({ authorization: `Bearer ${await this.accessToken()}` }),
    });
    this.csrf = (answer.body as { csrfToken: string }).csrfToken;
  }
}
