import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ensurePrivateDir } from '../../kernel/shared/private-files.js';
import type { Profile } from './config.schema.js';
import { ConfigError } from './load-config.js';

/** Secrets the service needs. Later features add their names here. */
export const SECRET_NAMES = [
  /** Bearer token of the ops inspection routes and `agentctl`. */
  'OPS_TOKEN',
  /** Signs session JWTs and CSRF tokens. */
  'SESSION_SECRET',
  /** Master key for encryption at rest and keyed hashes of API keys and tokens (HKDF per purpose). */
  'DATA_ENCRYPTION_KEY',
] as const;
export type SecretName = (typeof SECRET_NAMES)[number];
export type Secrets = Record<SecretName, string>;

const MIN_SECRET_LENGTH = 32;
/** The embedded profile's generated secrets, in DATA_DIR (also what `agentctl backup` seals and `restore` writes back). */
export const SECRETS_FILE = 'secrets.json';
const storedSecretsSchema = z.record(z.string(), z.string());

export interface ResolveSecretsOptions {
  profile: Profile;
  dataDir: string;
  env?: NodeJS.ProcessEnv;
  /** Told which secrets were generated (names only, never values). */
  onGenerated?: (names: string[], file: string) => void;
}

/**
 * Each secret comes from `NAME`, else from the file named by `NAME_FILE`. The embedded
 * profile generates missing ones into `DATA_DIR/secrets.json` (mode 0600) so that
 * `npm start` works with nothing set; production refuses to start without them.
 */
export function resolveSecrets(options: ResolveSecretsOptions): Secrets {
  const env = options.env ?? process.env;
  const problems: string[] = [];
  const found: Partial<Secrets> = {};
  for (const name of SECRET_NAMES) {
    const value = readSecret(name, env, problems);
    if (value !== undefined) found[name] = value;
  }
  if (problems.length) throw new ConfigError(problems);

  const missing = SECRET_NAMES.filter((name) => found[name] === undefined);
  if (missing.length === 0) return found as Secrets;
  if (options.profile === 'production') {
    throw new ConfigError(missing.map((name) => `${name}: is required by the production profile (or ${name}_FILE)`));
  }
  return { ...loadOrGenerate(options, missing), ...found } as Secrets;
}

function readSecret(name: string, env: NodeJS.ProcessEnv, problems: string[]): string | undefined {
  let value = env[name];
  const file = env[`${name}_FILE`];
  if (!value && file) {
    try {
      value = readFileSync(file, 'utf8').trim();
    } catch (error) {
      problems.push(`${name}_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
      return undefined;
    }
  }
  if (!value) return undefined;
  if (value.length < MIN_SECRET_LENGTH) {
    problems.push(`${name}: must be at least ${MIN_SECRET_LENGTH} characters`);
    return undefined;
  }
  return value;
}

/**
 * Reads the generated secrets, generating the missing ones. Several processes may start on
 * one data directory at once: they must end up with the same secrets (a second
 * DATA_ENCRYPTION_KEY would make the first one's sealed keys unreadable), so generating
 * happens under a lock file, and the file is replaced by a rename, never seen half-written.
 */
function loadOrGenerate(options: ResolveSecretsOptions, missing: SecretName[]): Partial<Secrets> {
  const file = join(options.dataDir, SECRETS_FILE);
  let stored = readStored(file);
  if (missing.some((name) => !stored[name])) {
    ensurePrivateDir(options.dataDir);
    withLockFile(`${file}.lock`, () => {
      stored = readStored(file); // what a process that held the lock before us wrote
      const generated = missing.filter((name) => !stored[name]);
      if (!generated.length) return;
      for (const name of generated) stored[name] = randomBytes(32).toString('base64url');
      const temp = `${file}.${process.pid}.tmp`;
      writeFileSync(temp, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
      chmodSync(temp, 0o600); // whatever the umask
      renameSync(temp, file);
      options.onGenerated?.(generated, file);
    });
  }
  return Object.fromEntries(missing.map((name) => [name, stored[name]!]));
}

function readStored(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const parsed = storedSecretsSchema.safeParse(parseJson(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new ConfigError([`${file}: is not a JSON object of strings; fix or remove it`]);
  return parsed.data;
}

const LOCK_WAIT_MS = 10_000;
/**
 * A lock this old was left by a process that died holding it (the locked work takes
 * milliseconds). Shorter than the wait, so a restart right after such a death gets in.
 */
const STALE_LOCK_MS = 5_000;

/** Runs `fn` holding `lock` (created exclusively; other processes wait for it, at start-up only). */
function withLockFile(lock: string, fn: () => void): void {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const age = lockAgeMs(lock);
    if (age !== undefined && age > STALE_LOCK_MS) rmSync(lock, { force: true });
    else if (Date.now() > deadline) throw new ConfigError([`${lock}: held by another process; remove it if no service is starting`]);
    else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); // a synchronous 20 ms pause
  }
  try {
    fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

function lockAgeMs(lock: string): number | undefined {
  try {
    return Date.now() - statSync(lock).mtimeMs;
  } catch {
    return undefined; // released meanwhile
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
