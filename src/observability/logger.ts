/**
 * The service logger: pino with redaction of credentials wherever they appear in a
 * logged object (headers, bodies, nested records), so no code path can leak a secret
 * by logging a request or a domain object.
 */
import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import { createPrettyStream } from './pretty-stream.js';

export type { Logger } from 'pino';

export interface LoggerOptions {
  level: Level | 'silent';
  /** Human-readable single lines instead of JSON (local development). */
  pretty?: boolean;
  /** Where lines go; stdout by default. Tests pass an in-memory stream. */
  destination?: DestinationStream;
  /** `name` binding on every line. */
  name?: string;
}

/**
 * Field names (any case) whose values are secrets, wherever they appear in a logged object
 * or an ops view of an actor (`redactSecrets` serves both: one list). A key's `secretHash`
 * and a session's refresh-token ids (`refreshJti`, and `presentedJti`/`nextJti` of its
 * journal) are secret material too: the hash finds the key, a jti names the one refresh
 * token that is valid next.
 */
const SECRET_KEYS = [
  'authorization',
  'cookie',
  'set-cookie',
  'x-api-key',
  'x-step-up-token',
  'x-csrf-token',
  'x-ops-token',
  'secret',
  'clientSecret',
  'token',
  'apiKey',
  'api_key',
  'key',
  'password',
  'privateKey',
  'private_key',
  'secretKey',
  'mnemonic',
  'stepUpToken',
  'refreshToken',
  'accessToken',
  'providerToken',
  'idToken',
  'csrfToken',
  'secretHash',
  'refreshJti',
  'presentedJti',
  'nextJti',
] as const;

const SECRET_KEY_SET = new Set(SECRET_KEYS.map((key) => key.toLowerCase()));
const CENSOR = '[Redacted]';
/** Deeper than this a value is replaced whole: nothing we log nests that far. */
const MAX_DEPTH = 10;

/**
 * A copy of `value` with every secret-named field censored, at any depth, in plain
 * objects and arrays. Class instances (errors, sockets) are left to pino's serializers.
 * It runs only for lines that are written, so per-request child loggers stay cheap
 * (path-based redaction ran on every child's bindings and cost more than the request).
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return CENSOR;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = SECRET_KEY_SET.has(key.toLowerCase()) ? CENSOR : redactSecrets(item, depth + 1);
  }
  return out;
}

/** Creates the root logger; request loggers are children of it (see the HTTP request context). */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? (options.pretty ? createPrettyStream(process.stdout) : undefined);
  const root = pino(
    {
      level: options.level,
      ...(options.name === undefined ? {} : { name: options.name }),
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: {
        log: (object) => redactSecrets(object) as Record<string, unknown>,
        bindings: (bindings) => redactSecrets(bindings) as Record<string, unknown>,
      },
    },
    destination ?? pino.destination({ sync: false }),
  );
  // pino runs `formatters.bindings` for the root only; children (inheriting this method) get the same treatment.
  const child = root.child;
  root.child = function (this: Logger, bindings: Record<string, unknown>, options?: unknown) {
    return child.call(this, redactSecrets(bindings) as Record<string, unknown>, options as never);
  } as typeof root.child;
  return root;
}
