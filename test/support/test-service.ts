import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';
import { createLogger } from '../../src/observability/logger.js';
import { loadConfig } from '../../src/config/load-config.js';
import { resolveSecrets } from '../../src/config/secrets.js';
import { startService, type RunningService } from '../../src/composition/service.composition.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';

export const PUBLIC_URL = 'http://agents.test';
const DOMAIN = 'agents.test';

export interface TestService {
  service: RunningService;
  url: string;
  dataDir: string;
  opsToken: string;
  /** Every log line the service wrote. */
  logs: string[];
  stop(): Promise<void>;
}

/** The real service in this process, on a free port, with its own data dir and captured logs. */
export async function startTestService(
  options: {
    clock?: ClockPort;
    env?: Record<string, string>;
    /** Benchmarks: log at info and discard, as a production process would cost. */
    discardLogs?: boolean;
    /** Restart on an earlier service's data (and its generated secrets). */
    dataDir?: string;
  } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'svc-'));
  // Tests sign in many operators from one address (4 public requests each): the per-IP
  // budget of public routes is raised unless a test sets it (the tests of that budget do).
  // Every test is one client address too, and some send hundreds of requests at once (rate
  // budgets): the per-address connection cap likewise (its tests set it).
  const config = loadConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    PUBLIC_URL,
    LOG_LEVEL: 'debug',
    PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
    HTTP_MAX_CONNECTIONS_PER_IP: '1000',
    ...options.env,
  });
  const logs: string[] = [];
  const logger = options.discardLogs
    ? createLogger({ level: 'info', destination: { write: () => undefined } })
    : createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(line) } });
  const secrets = resolveSecrets({ profile: config.profile, dataDir, env: {} });
  const service = await startService({ config, secrets, logger, ...(options.clock ? { clock: options.clock } : {}) });
  return {
    service,
    url: service.url,
    dataDir,
    opsToken: secrets.OPS_TOKEN,
    logs,
    stop: async () => {
      await service.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface HttpResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** `/metrics` as the service's scraper reads it on the main port: with the ops token. */
export async function scrapeMetrics(svc: { url: string; opsToken: string }): Promise<string> {
  const response = await fetch(`${svc.url}/metrics`, { headers: { authorization: `Bearer ${svc.opsToken}` } });
  if (response.status !== 200) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
}

/** A tiny HTTP client that keeps cookies, like a browser would for the pre-login CSRF cookie. */
export class Client {
  private cookies = new Map<string, string>();
  bearer: string | undefined;
  csrf: string | undefined;

  constructor(readonly base: string) {}

  async request<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult<T>> {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.bearer ? { authorization: `Bearer ${this.bearer}` } : {}),
        ...(this.csrf && method !== 'GET' ? { 'x-csrf-token': this.csrf } : {}),
        ...(this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    for (const cookie of response.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [key, ...value] = pair!.split('=');
      this.cookies.set(key!.trim(), value.join('='));
    }
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
  }

  get = <T = any>(path: string, headers?: Record<string, string>) => this.request<T>('GET', path, undefined, headers);
  post = <T = any>(path: string, body?: unknown, headers?: Record<string, string>) => this.request<T>('POST', path, body ?? {}, headers);
  put = <T = any>(path: string, body?: unknown) => this.request<T>('PUT', path, body ?? {});
  patch = <T = any>(path: string, body?: unknown) => this.request<T>('PATCH', path, body ?? {});
  /** A DELETE sends no body unless given one (routes refuse one). */
  delete = <T = any>(path: string, body?: unknown) => this.request<T>('DELETE', path, body);

  /** The value of a cookie the service set (empty once it cleared it). */
  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  /** Fetches a CSRF token: pre-login (cookie-bound) or for the current session. */
  async refreshCsrf(): Promise<string> {
    const { body } = await this.get<{ csrfToken: string }>('/api/nest/auth/csrf');
    this.csrf = body.csrfToken;
    return body.csrfToken;
  }
}

/** A Solana wallet that signs like a browser wallet would. */
export function solanaWallet() {
  const keys = nacl.sign.keyPair();
  return {
    address: bs58.encode(keys.publicKey),
    secretKey: keys.secretKey,
    sign: (message: string) => bs58.encode(nacl.sign.detached(new TextEncoder().encode(message), keys.secretKey)),
  };
}

/** An EVM account and the EIP-4361 message a dapp would build for it. */
export function evmWallet() {
  const privateKey = generatePrivateKey();
  const account = privateKeyToAccount(privateKey);
  return {
    address: account.address,
    privateKey,
    /** `overrides` replace fields of the message (a wrong URI or chain for refusal tests). */
    message: (nonce: string, now = new Date(), overrides: Partial<Parameters<typeof createSiweMessage>[0]> = {}) =>
      createSiweMessage({
        domain: DOMAIN,
        address: account.address,
        uri: PUBLIC_URL,
        version: '1',
        chainId: 1,
        nonce,
        issuedAt: now,
        ...overrides,
      }),
    sign: (message: string) => account.signMessage({ message }),
  };
}

/** Signs in with a fresh Solana wallet; the client then carries the session and its CSRF token. */
export async function signInSolana(client: Client, wallet = solanaWallet()) {
  client.bearer = undefined;
  await client.refreshCsrf();
  const { body: challenge } = await client.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
  const login = await client.post('/api/nest/auth/login', {
    message: challenge.message,
    signature: wallet.sign(challenge.message),
    walletAddress: wallet.address,
  });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  client.bearer = login.body.accessToken;
  await client.refreshCsrf();
  return { wallet, ...login.body } as {
    wallet: typeof wallet;
    accessToken: string;
    refreshToken: string;
    user: { id: string; walletAddress: string };
  };
}
