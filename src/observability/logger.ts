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

/** Field names whose values are secrets, matched at any of the depths below. */
export const SECRET_KEYS = [
  'authorization',
  'cookie',
  '"set-cookie"',
  '"x-api-key"',
  '"x-step-up-token"',
  '"x-csrf-token"',
  '"x-ops-token"',
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
] as const;

/**
 * pino's redaction wildcards match exactly one level (`*.token` is not `**.token`), so
 * every key is listed at each depth up to this one; deeper secrets should not be logged.
 */
const MAX_REDACT_DEPTH = 5;

/** Redaction paths: each secret key at depths 0..MAX_REDACT_DEPTH (e.g. `*.*.authorization` covers `req.headers.authorization`). */
export function redactPaths(keys: readonly string[] = SECRET_KEYS): string[] {
  const paths: string[] = [];
  for (let depth = 0; depth <= MAX_REDACT_DEPTH; depth += 1) {
    const prefix = '*.'.repeat(depth);
    for (const key of keys) {
      // Quoted keys use bracket notation, which attaches without a dot.
      paths.push(key.startsWith('"') ? `${prefix.slice(0, -1)}[${key}]` : `${prefix}${key}`);
    }
  }
  return paths;
}

/** Creates the root logger; request loggers are children of it (see the HTTP request context). */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? (options.pretty ? createPrettyStream(process.stdout) : undefined);
  return pino(
    {
      level: options.level,
      ...(options.name === undefined ? {} : { name: options.name }),
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: redactPaths(), censor: '[Redacted]' },
    },
    destination ?? pino.destination({ sync: false }),
  );
}
