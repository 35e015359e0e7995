import { z } from 'zod';

/** Every environment variable the service reads; README "Configuration" mirrors this. */
const intFromEnv = (fallback: number, min: number, max: number) =>
  z.coerce.number().int().min(min).max(max).default(fallback);

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
    MONGODB_DB: z.string().trim().regex(/^[A-Za-z0-9_-]{1,63}$/, 'must be 1-63 letters, digits, _ or -').default('agent_service'),
    REDIS_URL: optionalUrl(['redis', 'rediss']),
    EVM_RPC_URL: optionalUrl(['http', 'https']),
    MCP_GRANULAR_ERRORS: z.enum(['true', 'false']).default('false'),
    REDIS_KEY_PREFIX: z.string().trim().min(1).default('agentsvc'),
    RUNTIME_MAX_LIVE_ACTORS: intFromEnv(10_000, 1, 10_000_000),
    RUNTIME_IDLE_MS: intFromEnv(60_000, 10, 86_400_000),
    RUNTIME_MAX_CONFLICT_RETRIES: intFromEnv(20, 0, 100),
    SHUTDOWN_TIMEOUT_MS: intFromEnv(10_000, 100, 600_000),
    // LLM used by ask_bot to phrase replies; without LLM_BASE_URL the embedded templated one answers.
    LLM_BASE_URL: optionalUrl(['http', 'https']),
    LLM_API_KEY: z.string().trim().min(1).optional(),
    LLM_API_KEY_FILE: z.string().trim().min(1).optional(),
    LLM_MODEL: z.string().trim().min(1).max(200).optional(),
    LLM_TIMEOUT_MS: intFromEnv(15_000, 100, 300_000),
  })
  .superRefine((env, ctx) => {
    if (env.PROFILE === 'production') {
      if (!env.MONGODB_URL) ctx.addIssue({ code: 'custom', path: ['MONGODB_URL'], message: 'is required by the production profile' });
      if (!env.REDIS_URL) ctx.addIssue({ code: 'custom', path: ['REDIS_URL'], message: 'is required by the production profile' });
    }
    if (env.LLM_BASE_URL && !env.LLM_MODEL) ctx.addIssue({ code: 'custom', path: ['LLM_MODEL'], message: 'is required when LLM_BASE_URL is set' });
  });

export type EnvInput = z.input<typeof envSchema>;
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
  /** JSON-RPC endpoint for EVM reads (ERC-1271 contract-wallet sign-in); absent = EOAs only. */
  evmRpcUrl?: string;
  logLevel: Env['LOG_LEVEL'];
  mongo?: { url: string; dbName: string };
  redis?: { url: string; keyPrefix: string };
  runtime: { maxLiveActors: number; idleMs: number; maxConflictRetries: number };
  shutdownTimeoutMs: number;
  /** OpenAI-compatible LLM; absent = the embedded templated one. `apiKey` is a secret: never log it. */
  llm?: { baseUrl: string; model: string; timeoutMs: number; apiKey?: string; apiKeyFile?: string };
}

export function toAppConfig(env: Env): AppConfig {
  const profile: Profile =
    env.PROFILE ?? (env.MONGODB_URL && env.REDIS_URL ? 'production' : 'embedded');
  return {
    profile,
    port: env.PORT,
    host: env.HOST,
    dataDir: env.DATA_DIR,
    publicUrl: env.PUBLIC_URL ?? `http://${env.HOST}:${env.PORT}`,
    mcpGranularErrors: env.MCP_GRANULAR_ERRORS === 'true',
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
    shutdownTimeoutMs: env.SHUTDOWN_TIMEOUT_MS,
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
