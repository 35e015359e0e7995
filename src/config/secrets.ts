import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
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
const SECRETS_FILE = 'secrets.json';
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

function loadOrGenerate(options: ResolveSecretsOptions, missing: SecretName[]): Partial<Secrets> {
  const file = join(options.dataDir, SECRETS_FILE);
  let stored: Record<string, string> = {};
  if (existsSync(file)) {
    const parsed = storedSecretsSchema.safeParse(parseJson(readFileSync(file, 'utf8')));
    if (!parsed.success) throw new ConfigError([`${file}: is not a JSON object of strings; fix or remove it`]);
    stored = parsed.data;
  }
  const generated = missing.filter((name) => !stored[name]);
  if (generated.length) {
    for (const name of generated) stored[name] = randomBytes(32).toString('base64url');
    mkdirSync(options.dataDir, { recursive: true });
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    options.onGenerated?.(generated, file);
  }
  return Object.fromEntries(missing.map((name) => [name, stored[name]!]));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
