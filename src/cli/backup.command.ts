/**
 * `agentctl backup <file>` and `agentctl restore <file> --data-dir <dir>`: the embedded
 * profile's data directory (the LMDB store and secrets.json) to one archive and back.
 *
 * Unlike the other commands these read the data directory itself, not the service's ops
 * routes: a backup must be taken whether or not the service answers, and a restore sets up a
 * directory no service runs on yet. The store is copied with LMDB's own copy, which is
 * consistent while the service writes (lmdb-copy.ts says why). The secrets travel sealed with
 * a passphrase (passphrase-seal.ts), never in the clear.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { copyLmdbEnvironment, countLmdbDocuments, hasLmdbEnvironment, lmdbEnvironmentInUse } from '../../adapters/lmdb/lmdb-copy.js';
import { ensurePrivateDir, makeFilePrivate } from '../../kernel/shared/private-files.js';
import { dataDirLocked } from '../composition/data-dir-lock.js';
import { embeddedBusHistoryDir, embeddedStoreDir } from '../composition/data-dir-layout.js';
import { SECRET_NAMES, SECRETS_FILE } from '../config/secrets.js';
import {
  ArchiveError,
  archiveBinding,
  extractSection,
  FORMAT_VERSION,
  fileSha256,
  manifestBase,
  readArchiveLayout,
  readSection,
  sectionSha256,
  writeArchive,
  type Manifest,
} from './backup-archive.js';
import { MIN_PASSPHRASE_LENGTH, seal, unseal, WrongPassphraseError } from './passphrase-seal.js';

type Env = Record<string, string | undefined>;
export interface BackupIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Asks for a passphrase without echoing it; absent when there is no terminal to ask on. */
  ask?: (question: string) => Promise<string>;
}
type Flags = Record<string, string | true | undefined>;

/**
 * With `REDIS_URL`, BullMQ keeps the schedules in Redis, outside the data directory: the archive
 * cannot hold them, and an operator restoring it next to an empty Redis would otherwise learn
 * that only when a DCA strategy stops buying. Said at backup and at restore, with what start-up
 * rebuilds by itself and what it does not.
 */
function redisSchedulesNote(env: Env, heading: 'not included' | 'not restored'): string[] {
  if (!env.REDIS_URL) return [];
  return [
    `  ${heading}: the schedules in Redis (REDIS_URL is set): DCA runs and end dates, approval, key, identity-token and`,
    '             OAuth grant expiries. Snapshot Redis beside this backup (redis-cli BGSAVE, then copy dump.rdb, or its AOF)',
    '             and restore both. Next to a Redis without them, start-up re-arms approval expiries of held orders and finishes',
    '             orders and withdrawals in flight, but does not rebuild DCA schedules from the stored strategies: an active',
    '             strategy that shows no next buy is re-armed with POST /api/nest/trading/dca/resume/:userId {name}.',
  ];
}

const secretsSchema = z.record(z.string(), z.string());
const packageSchema = z.object({ name: z.string(), version: z.string() });

/** Thrown for a refusal the operator acts on: printed as it is, exit 1. */
class Refusal extends Error {}

export async function runBackup(file: string | undefined, flags: Flags, env: Env, io: BackupIo): Promise<number> {
  if (!file) {
    io.err('Usage: agentctl backup <file> [--data-dir DIR] [--passphrase-file F]');
    return 2;
  }
  return refusalsToExit(io, async () => {
    const dataDir = resolve(str(flags['data-dir']) ?? env.DATA_DIR ?? './data');
    const storeDir = embeddedStoreDir(dataDir);
    if (!hasLmdbEnvironment(storeDir))
      throw new Refusal(
        `${dataDir}: holds no embedded store (${storeDir}). Point DATA_DIR or --data-dir at the service's data directory; ` +
          'the MongoDB profile is backed up with mongodump (README, "Backup and restore")',
      );
    const target = resolve(file);
    if (existsSync(target)) throw new Refusal(`${target}: exists; a backup never overwrites a file, choose another name`);
    if (!isDirectory(dirname(target))) throw new Refusal(`${dirname(target)}: is not a directory to write the backup in`);
    const secrets = readSecrets(join(dataDir, SECRETS_FILE));
    const passphrase = await passphraseFrom(flags, env, io, true);
    if (passphrase.length < MIN_PASSPHRASE_LENGTH)
      throw new Refusal(`the backup passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters`);

    // The copy's snapshot begins after this instant: every write acknowledged before it is in the backup.
    const createdAt = new Date().toISOString();
    const staging = mkdtempSync(join(dirname(target), '.agentctl-backup-'));
    const partial = `${target}.partial`;
    try {
      const { compacted } = await copyLmdbEnvironment(storeDir, staging);
      const copy = join(staging, 'data.mdb');
      const documents = await countLmdbDocuments(staging);
      const store: Manifest['store'] = {
        engine: 'lmdb',
        file: 'data.mdb',
        bytes: statSync(copy).size,
        sha256: await fileSha256(copy),
        compacted,
        documents,
      };
      const { sealed, seal: how } = await seal(
        Buffer.from(JSON.stringify(secrets)),
        passphrase,
        archiveBinding({ formatVersion: FORMAT_VERSION, createdAt, store }),
      );
      const manifest: Manifest = {
        ...manifestBase(createdAt, serviceVersion()),
        store,
        secrets: { names: Object.keys(secrets).sort(), bytes: sealed.length, sha256: sha256(sealed), seal: how },
      };
      await writeArchive(partial, manifest, copy, sealed);
      renameSync(partial, target);
      io.out(
        [
          `backup written to ${target} (${statSync(target).size} bytes)`,
          `  taken at:  ${createdAt} (service ${manifest.service.version}, backup format ${FORMAT_VERSION})`,
          `  store:     ${documents} documents, ${store.bytes} bytes${compacted ? ' (compacted)' : ' (not compacted: LMDB could not compact this store)'}, sha256 ${store.sha256}`,
          `  secrets:   ${manifest.secrets.names.join(', ') || 'none'}, sealed with the passphrase`,
          ...missingSecrets(manifest.secrets.names).map(
            (name) =>
              `  warning:   ${name} is not in ${SECRETS_FILE} (the service reads it from its environment): keep its value with this backup; the restored service needs the same one`,
          ),
          ...redisSchedulesNote(env, 'not included'),
        ].join('\n'),
      );
      return 0;
    } finally {
      rmSync(staging, { recursive: true, force: true });
      rmSync(partial, { force: true });
    }
  });
}

export async function runRestore(file: string | undefined, flags: Flags, env: Env, io: BackupIo): Promise<number> {
  const dataDirFlag = str(flags['data-dir']);
  if (!file || !dataDirFlag) {
    io.err('Usage: agentctl restore <file> --data-dir DIR [--force] [--passphrase-file F]');
    return 2;
  }
  return refusalsToExit(io, async () => {
    const archive = resolve(file);
    const { manifest, storeOffset, secretsOffset } = await readArchiveLayout(archive);
    const dataDir = resolve(dataDirFlag);
    const storeDir = embeddedStoreDir(dataDir);
    if (existsSync(dataDir) && !isDirectory(dataDir)) throw new Refusal(`${dataDir}: is not a directory`);
    const existing = existsSync(dataDir) ? readdirSync(dataDir) : [];
    if (existing.length > 0) {
      if (flags.force !== true)
        throw new Refusal(`${dataDir}: is not empty; restore sets up a new data directory (--force replaces its store and secrets)`);
      if ((await dataDirLocked(dataDir)) || lmdbEnvironmentInUse(storeDir) === true)
        throw new Refusal(
          `${dataDir}: a running service (or another process) has it open; restore never replaces the data of a running service: stop it first`,
        );
    }

    // Everything is checked before anything is written: both sections match their checksums (so a
    // seal that does not open means another passphrase, not a damaged file), then the secrets open.
    const storeDigest = await sectionSha256(archive, storeOffset, manifest.store.bytes);
    if (storeDigest !== manifest.store.sha256) throw storeDamaged(archive, storeDigest, manifest.store.sha256);
    const sealed = await readSection(archive, secretsOffset, manifest.secrets.bytes);
    if (sha256(sealed) !== manifest.secrets.sha256)
      throw new ArchiveError(`${archive}: is damaged: its secrets section does not match its checksum`);
    const passphrase = await passphraseFrom(flags, env, io, false);
    const plain = await unseal(sealed, passphrase, archiveBinding(manifest), manifest.secrets.seal);
    const secrets = secretsSchema.parse(JSON.parse(plain.toString('utf8')));

    ensurePrivateDir(dataDir);
    const staging = mkdtempSync(join(dataDir, '.restore-'));
    try {
      const stagedStore = join(staging, 'store');
      ensurePrivateDir(stagedStore);
      const digest = await extractSection(archive, storeOffset, manifest.store.bytes, join(stagedStore, 'data.mdb'));
      // Checked again as written: the file may have changed since the first read.
      if (digest !== manifest.store.sha256) throw storeDamaged(archive, digest, manifest.store.sha256);
      const documents = await countLmdbDocuments(stagedStore).catch((error: Error) => {
        throw new ArchiveError(`${archive}: its store section does not open as an LMDB environment (${error.message})`);
      });
      if (documents !== manifest.store.documents)
        throw new ArchiveError(`${archive}: its store holds ${documents} documents, its manifest says ${manifest.store.documents}`);
      writeFileSync(join(staging, SECRETS_FILE), `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });

      // Into place by renames; what --force replaces is kept aside until the new files are in.
      const replaced = join(staging, 'replaced');
      ensurePrivateDir(replaced);
      for (const name of ['store', SECRETS_FILE]) {
        if (existsSync(join(dataDir, name))) renameSync(join(dataDir, name), join(replaced, name));
        renameSync(join(staging, name), join(dataDir, name));
      }
      // The replay history is the replaced store's past: a restored service starts its streams
      // afresh, and a client resuming from an old event id must not be handed events of agents
      // and orders the restored store never had.
      const history = embeddedBusHistoryDir(dataDir);
      if (existsSync(history)) renameSync(history, join(replaced, basename(history)));
      for (const name of readdirSync(storeDir)) makeFilePrivate(join(storeDir, name));
      makeFilePrivate(join(dataDir, SECRETS_FILE));
    } finally {
      rmSync(staging, { recursive: true, force: true });
    }
    const ours = serviceVersion().version;
    io.out(
      [
        `restored ${archive} into ${dataDir}`,
        `  taken at:  ${manifest.createdAt} by service ${manifest.service.version}`,
        `  store:     ${manifest.store.documents} documents, sha256 ${manifest.store.sha256} (checked)`,
        `  secrets:   ${manifest.secrets.names.join(', ') || 'none'}`,
        ...(newer(manifest.service.version, ours)
          ? [
              `  warning:   the backup was written by service ${manifest.service.version}, newer than this one (${ours}): run that version on it`,
            ]
          : []),
        ...missingSecrets(manifest.secrets.names).map(
          (name) =>
            `  warning:   the backup holds no ${name}: give the service the value it had (${name} or ${name}_FILE); a generated one would not match the stored data`,
        ),
        ...redisSchedulesNote(env, 'not restored'),
        `start the service with DATA_DIR=${dataDir}`,
      ].join('\n'),
    );
    return 0;
  });
}

function storeDamaged(archive: string, digest: string, expected: string): ArchiveError {
  return new ArchiveError(`${archive}: is damaged: its store section does not match its checksum (sha256 ${digest}, manifest ${expected})`);
}

async function refusalsToExit(io: BackupIo, run: () => Promise<number>): Promise<number> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Refusal || error instanceof ArchiveError || error instanceof WrongPassphraseError) {
      io.err(error.message);
      return 1;
    }
    throw error;
  }
}

/** The passphrase: --passphrase-file, else BACKUP_PASSPHRASE, else BACKUP_PASSPHRASE_FILE, else asked on the terminal. */
async function passphraseFrom(flags: Flags, env: Env, io: BackupIo, confirm: boolean): Promise<string> {
  const file = str(flags['passphrase-file']) ?? (env.BACKUP_PASSPHRASE ? undefined : env.BACKUP_PASSPHRASE_FILE);
  if (file) {
    try {
      return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (error) {
      throw new Refusal(`${file}: cannot read the passphrase file (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  if (env.BACKUP_PASSPHRASE) return env.BACKUP_PASSPHRASE;
  if (!io.ask)
    throw new Refusal(
      'no passphrase for the secrets: set BACKUP_PASSPHRASE or BACKUP_PASSPHRASE_FILE, pass --passphrase-file, or run in a terminal',
    );
  const first = await io.ask('Backup passphrase: ');
  if (confirm && (await io.ask('The same again: ')) !== first) throw new Refusal('the two passphrases differ');
  return first;
}

function readSecrets(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  const parsed = secretsSchema.safeParse(parseJson(readFileSync(file, 'utf8')));
  if (!parsed.success) throw new Refusal(`${file}: is not a JSON object of strings; the service would not start on it either`);
  return parsed.data;
}

/** Secrets the service needs that the backup does not carry. */
function missingSecrets(names: string[]): string[] {
  return SECRET_NAMES.filter((name) => !names.includes(name));
}

/** The name and version of the service this agentctl belongs to (from source and from dist/server alike, package.json is two levels up). */
function serviceVersion(): Manifest['service'] {
  return packageSchema.parse(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')));
}

/** Whether dotted version `a` is above `b` (numeric parts; pre-release tags ignored). */
function newer(a: string, b: string): boolean {
  const parts = (v: string) => v.split(/[.+-]/).slice(0, 3).map(Number);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
}

const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const str = (value: string | true | undefined) => (typeof value === 'string' ? value : undefined);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
