import { isIP } from 'node:net';
import { z } from 'zod';
import { CHAINS, type Chain, EVM_CHAINS, type EvmChain, isChain, isEvmChain } from '../../kernel/vocabulary/chains.js';

/** Every environment variable the service reads; README "Configuration" mirrors this. */
const intFromEnv = (fallback: number, min: number, max: number) => z.coerce.number().int().min(min).max(max).default(fallback);

/** One `<evm chain>=<http(s) url>` pair of `EVM_CHAIN_RPC_URLS`, for every EVM chain of the vocabulary. */
const EVM_CHAIN_URL = new RegExp(`^\\s*(${EVM_CHAINS.join('|')})\\s*=\\s*https?:\\/\\/\\S+\\s*$`);
const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .trim()
    .min(1)
    .refine((value) => protocols.some((p) => value.startsWith(`${p}://`)), {
      message: `must start with ${protocols.map((p) => `${p}://`).join(' or ')}`,
    })
    .optional();

export const envSchema = z
  .object({
    PROFILE: z.enum(['embedded', 'production']).optional(),
    PORT: intFromEnv(3000, 0, 65535),
    HOST: z.string().trim().min(1).default('127.0.0.1'),
    DATA_DIR: z.string().trim().min(1).default('./data'),
    PUBLIC_URL: z
      .string()
      .trim()
      .regex(/^https?:\/\/[^/\s]+$/, 'must be an http(s) origin without a path, e.g. https://agents.example.com')
      .optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    MONGODB_URL: optionalUrl(['mongodb', 'mongodb+srv']),
    MONGODB_DB: z
      .string()
      .trim()
      .regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be 1-63 letters, digits, _ or -')
      .default('agent_service'),
    REDIS_URL: optionalUrl(['redis', 'rediss']),
    EVM_RPC_URL: optionalUrl(['http', 'https']),
    MCP_GRANULAR_ERRORS: z.enum(['true', 'false']).default('false'),
    /** OAuth clients whose metadata document is on a loopback http URL; default: on the embedded profile only. */
    OAUTH_LOOPBACK_CLIENT_IDS: z.enum(['true', 'false']).optional(),
    /** Browser origins besides PUBLIC_URL's that may call MCP and open event streams; `*`: any (src/mcp/mcp-origin.ts). */
    MCP_ALLOWED_ORIGINS: z
      .string()
      .trim()
      .transform((value, ctx) => {
        const origins = value
          .split(',')
          .map((origin) => origin.trim())
          .filter(Boolean);
        for (const origin of origins) {
          if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
            ctx.addIssue({
              code: 'custom',
              message: `must be a comma-separated list of http(s) origins without a path, or *; got ${origin}`,
            });
            return z.NEVER;
          }
        }
        return origins;
      })
      .optional(),
    REDIS_KEY_PREFIX: z.string().trim().min(1).default('agentsvc'),
    /**
     * Above the working set of 10,000 one-minute DCA strategies plus the orders and agents of
     * their ticks (at 10,000 the LRU evicted each strategy just before its next tick); a live
     * strategy actor holds about 6 KB, so this bounds them near 150 MB.
     */
    RUNTIME_MAX_LIVE_ACTORS: intFromEnv(25_000, 1, 10_000_000),
    RUNTIME_IDLE_MS: intFromEnv(60_000, 10, 86_400_000),
    RUNTIME_MAX_CONFLICT_RETRIES: intFromEnv(20, 0, 100),
    /** The embedded store's `DEFAULT_READ_CACHE_ENTRIES` (adapters/lmdb/lmdb-read-cache.ts says why this many). */
    STORE_READ_CACHE_ENTRIES: intFromEnv(30_000, 0, 10_000_000),
    /**
     * Address space each embedded LMDB environment (the store, the bus history) maps from the
     * start, in MiB (64 GiB; adapters/lmdb/lmdb-map-size.ts says why). Virtual, not memory: lower
     * it where address space is limited (`ulimit -v`, valgrind's 128 GB); a database past it still grows.
     */
    STORE_MAP_SIZE_MB: intFromEnv(65_536, 64, 16_777_216),
    /** Requests a minute per client address on public routes: sign-in, OpenAPI, discovery (60). */
    PUBLIC_RATE_LIMIT_PER_MINUTE: intFromEnv(60, 1, 10_000_000),
    /**
     * Which proxies in front of the service to believe about the client address
     * (`X-Forwarded-For`, express's `trust proxy`): a hop count, or addresses, CIDRs and
     * `loopback`/`linklocal`/`uniquelocal`. Unset: the TCP peer is the client.
     */
    TRUST_PROXY: z
      .string()
      .trim()
      .min(1)
      .transform((value, ctx) => {
        const parsed = parseTrustProxy(value);
        if (parsed === undefined) {
          ctx.addIssue({
            code: 'custom',
            message:
              'must be a hop count (1-10) or a comma-separated list of addresses, CIDRs, loopback, linklocal, uniquelocal (never true: X-Forwarded-For is client-written)',
          });
          return z.NEVER;
        }
        return parsed;
      })
      .optional(),
    SHUTDOWN_TIMEOUT_MS: intFromEnv(10_000, 100, 600_000),
    /** HTTP server: time to receive a request's headers, and its whole body (an API answers in seconds). */
    HTTP_HEADERS_TIMEOUT_MS: intFromEnv(10_000, 1_000, 600_000),
    HTTP_REQUEST_TIMEOUT_MS: intFromEnv(30_000, 1_000, 600_000),
    /** How long an idle keep-alive connection is kept open. */
    HTTP_KEEP_ALIVE_TIMEOUT_MS: intFromEnv(5_000, 100, 600_000),
    /** Open connections the server accepts at once (SSE/WebSocket streams included); past it new ones are closed. */
    HTTP_MAX_CONNECTIONS: intFromEnv(1_000, 10, 1_000_000),
    /** Open connections of one client address (event streams included); past it its new ones are closed. */
    HTTP_MAX_CONNECTIONS_PER_IP: intFromEnv(100, 1, 1_000_000),
    /** Event streams (SSE and WebSocket) one credential may hold open at once; past it 429. */
    MCP_EVENT_STREAMS_PER_CREDENTIAL: intFromEnv(20, 1, 10_000),
    /** When set, `/metrics` is served on this port only (no token), not on the main one (`0` picks a free port). */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    /** Per-user caps: past them a create is refused with 409. */
    MAX_AGENTS_PER_USER: intFromEnv(50, 1, 1_000_000),
    MAX_BOTS_PER_USER: intFromEnv(50, 1, 1_000_000),
    /** Active (not revoked, not expired) keys of one agent or bot. */
    MAX_ACTIVE_KEYS_PER_AGENT: intFromEnv(25, 1, 1_000_000),
    /** DCA strategies of one user (all of their agents). */
    MAX_STRATEGIES_PER_USER: intFromEnv(100, 1, 1_000_000),
    // LLM used by ask_bot to phrase replies; without LLM_BASE_URL the embedded templated one answers.
    LLM_BASE_URL: optionalUrl(['http', 'https']),
    LLM_API_KEY: z.string().trim().min(1).optional(),
    LLM_API_KEY_FILE: z.string().trim().min(1).optional(),
    LLM_MODEL: z.string().trim().min(1).max(200).optional(),
    LLM_TIMEOUT_MS: intFromEnv(15_000, 100, 300_000),
    // Trading venue: `paper` (default, simulated) or `live` (aggregator APIs and chain RPCs below).
    TRADING_VENUE: z.enum(['paper', 'live']).default('paper'),
    /** Seed of the paper venue's deterministic price feed. */
    PAPER_SEED: z.string().trim().min(1).max(100).default('paper-v1'),
    /** Chains whose trading kill switch is on at start, comma-separated (e.g. `solana,base`). */
    TRADING_KILL_SWITCH: z
      .string()
      .trim()
      .default('')
      .refine((value) => value === '' || value.split(',').every((chain) => isChain(chain.trim())), {
        message: `must be a comma-separated list of ${CHAINS.join(', ')}`,
      }),
    SOLANA_RPC_URL: optionalUrl(['http', 'https']),
    /** Jupiter-compatible quote/swap API (e.g. https://quote-api.jup.ag/v6). */
    JUPITER_API_URL: optionalUrl(['http', 'https']),
    /** 0x-compatible swap API (e.g. https://api.0x.org). */
    ZEROX_API_URL: optionalUrl(['http', 'https']),
    ZEROX_API_KEY: z.string().trim().min(1).optional(),
    /** JSON-RPC URLs of EVM chains, e.g. `ethereum=https://...,base=https://...`. */
    EVM_CHAIN_RPC_URLS: z
      .string()
      .trim()
      .default('')
      .refine((text) => text === '' || text.split(',').every((pair) => EVM_CHAIN_URL.test(pair)), {
        message: `must look like ${EVM_CHAINS.slice(0, 2)
          .map((chain) => `${chain}=https://...`)
          .join(',')}`,
      }),
    /** Timeout of each call to a trading provider. */
    PROVIDER_TIMEOUT_MS: intFromEnv(10_000, 100, 120_000),
    /** How long a provider's circuit breaker stays open before a half-open probe (the limits: 60 s). */
    CIRCUIT_BREAKER_OPEN_MS: intFromEnv(60_000, 100, 3_600_000),
    /** Consecutive provider failures that open its circuit breaker. */
    CIRCUIT_BREAKER_THRESHOLD: intFromEnv(5, 1, 1000),
    /** Telegram Bot API root of legacy bots' Telegram connectors (default https://api.telegram.org). */
    TELEGRAM_API_URL: optionalUrl(['http', 'https']),
    /** Seconds one Telegram `getUpdates` long poll waits for a message. */
    TELEGRAM_POLL_TIMEOUT_SECONDS: intFromEnv(25, 0, 50),
    /** Discord REST API root, with its version (default https://discord.com/api/v10). */
    DISCORD_API_URL: optionalUrl(['http', 'https']),
    /** Pause between two Discord polls that found nothing. */
    DISCORD_POLL_INTERVAL_MS: intFromEnv(2_000, 10, 60_000),
    /** First pause after a failed platform call (doubles per failure, at most 30 s). */
    PLATFORM_RETRY_MS: intFromEnv(1_000, 1, 30_000),
    /** How long a process's hold on a started connector lasts without renewal (another process takes over after it). */
    PLATFORM_LEASE_MS: intFromEnv(30_000, 300, 600_000),
    /** How often each process looks for started connectors that nobody runs. */
    PLATFORM_SWEEP_MS: intFromEnv(10_000, 50, 600_000),
    /** Identity providers of walletless onboarding: JSON `{"<name>": {"issuer", "audience", "jwksUrl"}}`. */
    IDENTITY_PROVIDERS: z
      .string()
      .trim()
      .min(1)
      .transform((text, ctx) => {
        const parsed = parseIdentityProviders(text);
        if (typeof parsed === 'string') {
          ctx.addIssue({ code: 'custom', message: parsed });
          return z.NEVER;
        }
        return parsed;
      })
      .optional(),
    IDENTITY_PROVIDERS_FILE: z.string().trim().min(1).optional(),
    /** Budget of one fetch of a provider's JWKS. */
    IDENTITY_JWKS_TIMEOUT_MS: intFromEnv(5_000, 100, 60_000),
    /** Least time between two JWKS fetches of one provider for unknown `kid`s. */
    IDENTITY_JWKS_COOLDOWN_MS: intFromEnv(30_000, 0, 3_600_000),
    /** JSON-RPC per EIP-155 chain for ERC-8004 registries: `8453=https://...,1=https://...`. */
    ERC8004_RPC_URLS: z
      .string()
      .trim()
      .default('')
      .refine((text) => text === '' || text.split(',').every((pair) => /^\s*\d{1,12}\s*=\s*https?:\/\/\S+\s*$/.test(pair)), {
        message: 'must look like 8453=https://...,1=https://...',
      }),
    /** Identity registries SIWA may name (`eip155:<chainId>:<address>`, comma-separated); unset: any on a chain of ERC8004_RPC_URLS. */
    ERC8004_REGISTRIES: z
      .string()
      .trim()
      .default('')
      .refine((text) => text === '' || text.split(',').every((ref) => /^\s*eip155:\d{1,12}:0x[0-9a-fA-F]{40}\s*$/.test(ref)), {
        message: 'must look like eip155:8453:0x…,eip155:1:0x…',
      }),
    /** How often a verified agent's ERC-8004 ownership is asked again (at most hourly); tests lower it. */
    ERC8004_OWNER_CHECK_MS: intFromEnv(3_600_000, 60_000, 3_600_000),
    /** Shortest DCA interval, cron or `every` (a minute); tests of the scheduler lower it. */
    DCA_MIN_INTERVAL_SECONDS: intFromEnv(60, 1, 60),
    /** Gap between periodic portfolio value readings of an account that holds something; tests lower it. */
    PORTFOLIO_SAMPLE_SECONDS: intFromEnv(900, 1, 86_400),
    /** Days a portfolio value reading is kept. */
    PORTFOLIO_HISTORY_DAYS: intFromEnv(400, 1, 3_650),
  })
  .superRefine((env, ctx) => {
    if (env.PROFILE === 'production') {
      if (!env.MONGODB_URL) ctx.addIssue({ code: 'custom', path: ['MONGODB_URL'], message: 'is required by the production profile' });
      if (!env.REDIS_URL) ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: 'is required by the production profile' });
    }
    // Live with chain RPCs alone is a deployment of wallets and withdrawals (they need no venue); trades are refused per chain.
    if (env.TRADING_VENUE === 'live' && !env.JUPITER_API_URL && !env.ZEROX_API_URL && !env.SOLANA_RPC_URL && !env.EVM_CHAIN_RPC_URLS) {
      ctx.addIssue({
        code: 'custom',
        path: ['TRADING_VENUE'],
        message: 'live needs JUPITER_API_URL or ZEROX_API_URL, or a chain RPC (SOLANA_RPC_URL, EVM_CHAIN_RPC_URLS) for withdrawals alone',
      });
    }
    if (env.IDENTITY_PROVIDERS && env.IDENTITY_PROVIDERS_FILE) {
      ctx.addIssue({
        code: 'custom',
        path: ['IDENTITY_PROVIDERS_FILE'],
        message: 'set IDENTITY_PROVIDERS or IDENTITY_PROVIDERS_FILE, not both',
      });
    }
    if (env.LLM_BASE_URL && !env.LLM_MODEL)
      ctx.addIssue({ code: 'custom', path: ['LLM_MODEL'], message: 'is required when LLM_BASE_URL is set' });
  });

type Env = z.output<typeof envSchema>;

export type Profile = 'embedded' | 'production';

export interface AppConfig {
  profile: Profile;
  port: number;
  host: string;
  dataDir: string;
  /** Origin clients reach the service at; its host is the sign-in message domain. */
  publicUrl: string;
  /** MCP answers a hidden tool with `Tool not found: <name>` instead of `Method not found`. */
  mcpGranularErrors: boolean;
  /** Browser origins besides PUBLIC_URL's allowed on MCP and its event streams (`*`: any). */
  mcpAllowedOrigins: string[];
  /** OAuth: accept Client ID Metadata Documents at `http://127.0.0.1`/`localhost` URLs (local development, tests). */
  oauthLoopbackClientIds: boolean;
  /** JSON-RPC endpoint for EVM reads (ERC-1271 contract-wallet sign-in); absent = EOAs only. */
  evmRpcUrl?: string;
  logLevel: Env['LOG_LEVEL'];
  mongo?: { url: string; dbName: string };
  redis?: { url: string; keyPrefix: string };
  runtime: { maxLiveActors: number; idleMs: number; maxConflictRetries: number };
  /** Decoded documents the embedded store keeps for reuse (0: none). */
  storeReadCacheEntries: number;
  /** Bytes each embedded LMDB environment maps from the start. */
  storeMapSize: number;
  /** Requests a minute per client address on routes without a credential. */
  publicRatePerMinute: number;
  /** express's `trust proxy`: hop count or trusted addresses; absent, the TCP peer is the client. */
  trustProxy?: number | string[];
  shutdownTimeoutMs: number;
  http: HttpServerSettings;
  /** The port of `/metrics` alone; absent, `/metrics` is on the main port behind the ops token. */
  metricsPort?: number;
  /** Event streams one credential may hold open at once. */
  eventStreamsPerCredential: number;
  limits: AccountLimits;
  /** OpenAI-compatible LLM; absent = the embedded templated one. `apiKey` is a secret: never log it. */
  llm?: { baseUrl: string; model: string; timeoutMs: number; apiKey?: string; apiKeyFile?: string };
  trading: TradingSettings;
  identity: IdentitySettings;
  messaging: MessagingSettings;
}

/** Legacy bots' Telegram and Discord connectors. */
export interface MessagingSettings {
  telegramApiUrl: string;
  telegramPollTimeoutSeconds: number;
  discordApiUrl: string;
  discordPollIntervalMs: number;
  retryMs: number;
  leaseMs: number;
  sweepMs: number;
  /** The provider breaker settings, per connector. */
  breaker: { openMs: number; threshold: number };
}

/** One identity provider of walletless onboarding. */
export interface IdentityProviderConfig {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

/** ERC-8004 onboarding: identity providers, JWKS fetching, registries per chain. */
export interface IdentitySettings {
  /** From IDENTITY_PROVIDERS (the file, when given, is read at start: `providersFile`). */
  providers: Record<string, IdentityProviderConfig>;
  providersFile?: string;
  jwksTimeoutMs: number;
  jwksCooldownMs: number;
  /** EIP-155 chain id → JSON-RPC URL. */
  registryRpcUrls: Record<number, string>;
  /** Allowed registries (`eip155:<chainId>:<address>`); empty: any on a configured chain. */
  registries: string[];
  /** Circuit breaker of the providers and registries (the trading providers' settings). */
  breaker: { threshold: number; openMs: number };
  /** How often each verified agent's `ownerOf` is asked again. */
  ownerCheckMs: number;
}

const providerConfigSchema = z
  .object({
    issuer: z.string().min(1).max(500),
    audience: z.string().min(1).max(500),
    jwksUrl: z.string().regex(/^https?:\/\/\S+$/, 'must be an http(s) URL'),
  })
  .strict();
const providersSchema = z.record(
  z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'provider names are 1-64 letters, digits, _ . -'),
  providerConfigSchema,
);

/** IDENTITY_PROVIDERS (or its file's) text → the providers, or a message saying what is wrong. */
export function parseIdentityProviders(text: string): Record<string, IdentityProviderConfig> | string {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return 'must be JSON: {"<name>": {"issuer": "...", "audience": "...", "jwksUrl": "https://..."}}';
  }
  const result = providersSchema.safeParse(json);
  return result.success ? result.data : result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
}

/** Timeouts and the connection cap of the HTTP server. */
export interface HttpServerSettings {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  maxConnections: number;
  /** Open connections of one client address (the TCP peer; a trusted proxy is not counted, see `http-server.ts`). */
  maxConnectionsPerIp: number;
}

/** How many of each thing one user may have (configurable; DECISIONS "Caps"). */
export interface AccountLimits {
  agentsPerUser: number;
  botsPerUser: number;
  activeKeysPerAgent: number;
  strategiesPerUser: number;
}

export interface TradingSettings {
  venue: 'paper' | 'live';
  paperSeed: string;
  killSwitch: Chain[];
  providerTimeoutMs: number;
  breaker: { openMs: number; threshold: number };
  /** Shortest gap between two buys of a DCA strategy. */
  dcaMinIntervalMs: number;
  /** The portfolio value history: gap between periodic readings, and how long readings are kept. */
  valueHistory: { intervalMs: number; retentionDays: number };
  /** Live adapters; each is used when its URL is set. `zeroxApiKey` is a secret: never log it. */
  live: {
    solanaRpcUrl?: string;
    jupiterApiUrl?: string;
    zeroxApiUrl?: string;
    zeroxApiKey?: string;
    evmRpcUrls: Partial<Record<EvmChain, string>>;
  };
}

export function toAppConfig(env: Env): AppConfig {
  const profile: Profile = env.PROFILE ?? (env.MONGODB_URL && env.REDIS_URL ? 'production' : 'embedded');
  return {
    profile,
    port: env.PORT,
    host: env.HOST,
    dataDir: env.DATA_DIR,
    publicUrl: env.PUBLIC_URL ?? `http://${env.HOST}:${env.PORT}`,
    mcpGranularErrors: env.MCP_GRANULAR_ERRORS === 'true',
    mcpAllowedOrigins: env.MCP_ALLOWED_ORIGINS ?? [],
    // A loopback client id is a program on the service's own machine: fine for a developer's service, not for a public one.
    oauthLoopbackClientIds: env.OAUTH_LOOPBACK_CLIENT_IDS === undefined ? profile === 'embedded' : env.OAUTH_LOOPBACK_CLIENT_IDS === 'true',
    ...(env.EVM_RPC_URL ? { evmRpcUrl: env.EVM_RPC_URL } : {}),
    logLevel: env.LOG_LEVEL,
    // Each outside system is used when its URL is set, so a single host can run several
    // processes on the embedded store with Redis for schedules and events.
    ...(env.MONGODB_URL && env.PROFILE !== 'embedded' ? { mongo: { url: env.MONGODB_URL, dbName: env.MONGODB_DB } } : {}),
    ...(env.REDIS_URL && env.PROFILE !== 'embedded' ? { redis: { url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX } } : {}),
    runtime: {
      maxLiveActors: env.RUNTIME_MAX_LIVE_ACTORS,
      idleMs: env.RUNTIME_IDLE_MS,
      maxConflictRetries: env.RUNTIME_MAX_CONFLICT_RETRIES,
    },
    storeReadCacheEntries: env.STORE_READ_CACHE_ENTRIES,
    storeMapSize: env.STORE_MAP_SIZE_MB * 2 ** 20,
    publicRatePerMinute: env.PUBLIC_RATE_LIMIT_PER_MINUTE,
    ...(env.TRUST_PROXY !== undefined ? { trustProxy: env.TRUST_PROXY } : {}),
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
    http: {
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: env.HTTP_MAX_CONNECTIONS,
      maxConnectionsPerIp: env.HTTP_MAX_CONNECTIONS_PER_IP,
    },
    ...(env.METRICS_PORT !== undefined ? { metricsPort: env.METRICS_PORT } : {}),
    eventStreamsPerCredential: env.MCP_EVENT_STREAMS_PER_CREDENTIAL,
    limits: {
      agentsPerUser: env.MAX_AGENTS_PER_USER,
      botsPerUser: env.MAX_BOTS_PER_USER,
      activeKeysPerAgent: env.MAX_ACTIVE_KEYS_PER_AGENT,
      strategiesPerUser: env.MAX_STRATEGIES_PER_USER,
    },
    trading: {
      venue: env.TRADING_VENUE,
      paperSeed: env.PAPER_SEED,
      killSwitch: env.TRADING_KILL_SWITCH.split(',')
        .map((chain) => chain.trim())
        .filter(Boolean) as TradingSettings['killSwitch'],
      providerTimeoutMs: env.PROVIDER_TIMEOUT_MS,
      breaker: { openMs: env.CIRCUIT_BREAKER_OPEN_MS, threshold: env.CIRCUIT_BREAKER_THRESHOLD },
      dcaMinIntervalMs: env.DCA_MIN_INTERVAL_SECONDS * 1000,
      valueHistory: { intervalMs: env.PORTFOLIO_SAMPLE_SECONDS * 1000, retentionDays: env.PORTFOLIO_HISTORY_DAYS },
      live: {
        ...(env.SOLANA_RPC_URL ? { solanaRpcUrl: env.SOLANA_RPC_URL } : {}),
        ...(env.JUPITER_API_URL ? { jupiterApiUrl: env.JUPITER_API_URL } : {}),
        ...(env.ZEROX_API_URL ? { zeroxApiUrl: env.ZEROX_API_URL } : {}),
        ...(env.ZEROX_API_KEY ? { zeroxApiKey: env.ZEROX_API_KEY } : {}),
        evmRpcUrls: parseChainUrls(env.EVM_CHAIN_RPC_URLS),
      },
    },
    identity: {
      providers: env.IDENTITY_PROVIDERS ?? {},
      ...(env.IDENTITY_PROVIDERS_FILE ? { providersFile: env.IDENTITY_PROVIDERS_FILE } : {}),
      jwksTimeoutMs: env.IDENTITY_JWKS_TIMEOUT_MS,
      jwksCooldownMs: env.IDENTITY_JWKS_COOLDOWN_MS,
      registryRpcUrls: Object.fromEntries(
        env.ERC8004_RPC_URLS.split(',')
          .map((pair) => pair.trim())
          .filter(Boolean)
          .map((pair) => {
            const at = pair.indexOf('=');
            return [Number(pair.slice(0, at).trim()), pair.slice(at + 1).trim()];
          }),
      ),
      registries: env.ERC8004_REGISTRIES.split(',')
        .map((ref) => ref.trim())
        .filter(Boolean),
      breaker: { openMs: env.CIRCUIT_BREAKER_OPEN_MS, threshold: env.CIRCUIT_BREAKER_THRESHOLD },
      ownerCheckMs: env.ERC8004_OWNER_CHECK_MS,
    },
    messaging: {
      telegramApiUrl: env.TELEGRAM_API_URL ?? 'https://api.telegram.org',
      telegramPollTimeoutSeconds: env.TELEGRAM_POLL_TIMEOUT_SECONDS,
      discordApiUrl: env.DISCORD_API_URL ?? 'https://discord.com/api/v10',
      discordPollIntervalMs: env.DISCORD_POLL_INTERVAL_MS,
      retryMs: env.PLATFORM_RETRY_MS,
      leaseMs: env.PLATFORM_LEASE_MS,
      sweepMs: env.PLATFORM_SWEEP_MS,
      breaker: { openMs: env.CIRCUIT_BREAKER_OPEN_MS, threshold: env.CIRCUIT_BREAKER_THRESHOLD },
    },
    ...(env.LLM_BASE_URL && env.LLM_MODEL
      ? {
          llm: {
            baseUrl: env.LLM_BASE_URL,
            model: env.LLM_MODEL,
            timeoutMs: env.LLM_TIMEOUT_MS,
            ...(env.LLM_API_KEY ? { apiKey: env.LLM_API_KEY } : env.LLM_API_KEY_FILE ? { apiKeyFile: env.LLM_API_KEY_FILE } : {}),
          },
        }
      : {}),
  };
}

/** `ethereum=https://a,base=https://b` → `{ethereum, base}`; validated by the schema's refinement. */
function parseChainUrls(text: string): TradingSettings['live']['evmRpcUrls'] {
  const out: TradingSettings['live']['evmRpcUrls'] = {};
  for (const pair of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [chain, url] = pair.split('=', 2).map((p) => p.trim());
    if (chain && isEvmChain(chain) && url) out[chain] = url;
  }
  return out;
}

const PROXY_PRESETS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `TRUST_PROXY`: a hop count (1-10), or a list of addresses, CIDRs and presets; undefined when it is neither. */
function parseTrustProxy(value: string): number | string[] | undefined {
  if (/^\d+$/.test(value)) return Number(value) >= 1 && Number(value) <= 10 ? Number(value) : undefined;
  const entries = value.split(',').map((entry) => entry.trim());
  const valid = entries.every((entry) => {
    if (PROXY_PRESETS.has(entry)) return true;
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIP(address);
    if (family === 0 || rest.length > 0) return false;
    return prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128));
  });
  return valid ? entries : undefined;
}
