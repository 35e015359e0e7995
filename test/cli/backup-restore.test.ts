/**
 * `agentctl backup` and `restore` on a real LMDB store: the round trip, a copy taken while the
 * store is written, and every archive a restore must refuse (not one, cut short, changed,
 * newer, sealed with another passphrase) before it writes anything.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { runCli } from '../../src/cli/agentctl.js';
import { embeddedBusHistoryDir, embeddedStoreDir } from '../../src/composition/data-dir-layout.js';
import { ManualClock } from '../support/manual-clock.adapter.js';

const PASSPHRASE = 'a passphrase of some length';
const SECRETS = { OPS_TOKEN: 'o'.repeat(40), SESSION_SECRET: 's'.repeat(40), DATA_ENCRYPTION_KEY: 'd'.repeat(40) };
const SPECS = [{ name: 'things', indexes: ['kind'] }];
const MAGIC_BYTES = 16;

const work = mkdtempSync(join(tmpdir(), 'agentctl-backup-'));
let seq = 0;
const fresh = (name: string) => join(work, `${name}-${++seq}`);

async function ctl(argv: string[], env: Record<string, string> = { BACKUP_PASSPHRASE: PASSPHRASE }) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, env, { out: (t) => out.push(t), err: (t) => err.push(t) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

function openStore(dataDir: string): Promise<LmdbStore> {
  const store = new LmdbStore({ path: embeddedStoreDir(dataDir), clock: new ManualClock(), sweepIntervalMs: 3_600_000 });
  return store.init(SPECS).then(() => store);
}

/** A data directory with `count` documents and the three secrets, its store closed. */
async function dataDirWith(count: number): Promise<string> {
  const dir = fresh('data');
  const store = await openStore(dir);
  for (let i = 0; i < count; i++)
    await store.put('things', `t-${i}`, { data: { i, text: 'x'.repeat(200) }, expectedVersion: 0, indexes: { kind: i % 3 } });
  await store.close();
  writeFileSync(join(dir, 'secrets.json'), JSON.stringify(SECRETS), { mode: 0o600 });
  return dir;
}

async function ids(dataDir: string): Promise<string[]> {
  const store = await openStore(dataDir);
  try {
    const found: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list('things', { limit: 500, ...(cursor ? { cursor } : {}) });
      found.push(...page.items.map((doc) => doc.id));
      cursor = page.nextCursor;
    } while (cursor);
    return found.sort();
  } finally {
    await store.close();
  }
}

/** The archive's manifest, and a rewrite of it with its digest recomputed (a well-formed archive saying something else). */
function manifestOf(file: string) {
  const bytes = readFileSync(file);
  const length = bytes.readUInt32BE(MAGIC_BYTES);
  const start = MAGIC_BYTES + 4;
  const manifest = JSON.parse(bytes.subarray(start, start + length).toString('utf8'));
  const rest = bytes.subarray(start + length + 32);
  const rewrite = (next: unknown, target: string) => {
    const json = Buffer.from(JSON.stringify(next));
    const head = Buffer.alloc(4);
    head.writeUInt32BE(json.length);
    writeFileSync(target, Buffer.concat([bytes.subarray(0, MAGIC_BYTES), head, json, createHash('sha256').update(json).digest(), rest]));
  };
  return { manifest, storeOffset: start + length + 32, rewrite };
}

describe('agentctl backup and restore', () => {
  let source: string;
  let archive: string;
  beforeAll(async () => {
    source = await dataDirWith(300);
    archive = join(work, 'good.agentbak');
    const backup = await ctl(['backup', archive, '--data-dir', source]);
    expect(backup, backup.err).toMatchObject({ code: 0 });
  }, 120_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('restores the store and the secrets into a new, private data directory', async () => {
    const { manifest } = manifestOf(archive);
    expect(manifest).toMatchObject({
      format: 'agent-runtime-service backup',
      formatVersion: 1,
      service: { name: 'agent-runtime-service', version: expect.any(String) },
      store: { engine: 'lmdb', compacted: true, documents: 300 },
      secrets: { names: ['DATA_ENCRYPTION_KEY', 'OPS_TOKEN', 'SESSION_SECRET'] },
    });
    // The archive carries no secret in the clear.
    const raw = readFileSync(archive, 'latin1');
    for (const value of Object.values(SECRETS)) expect(raw).not.toContain(value);
    expect(statSync(archive).mode & 0o777).toBe(0o600);

    const target = fresh('restored');
    const restore = await ctl(['restore', archive, '--data-dir', target]);
    expect(restore, restore.err).toMatchObject({ code: 0, out: expect.stringContaining('300 documents') });
    expect(await ids(target)).toEqual(await ids(source));
    expect(JSON.parse(readFileSync(join(target, 'secrets.json'), 'utf8'))).toEqual(SECRETS);
    expect(statSync(target).mode & 0o777).toBe(0o700);
    expect(statSync(join(target, 'secrets.json')).mode & 0o777).toBe(0o600);
    expect(statSync(join(embeddedStoreDir(target), 'data.mdb')).mode & 0o777).toBe(0o600);
    expect(readdirSync(target).sort()).toEqual(['secrets.json', 'store']); // no staging left behind
  }, 120_000);

  it('copies a store that is being written: everything written before the backup is in it', async () => {
    const dir = await dataDirWith(10);
    const store = await openStore(dir);
    let writing = true;
    let written = 0;
    const writer = (async () => {
      while (writing) await store.put('things', `w-${written++}`, { data: { text: 'y'.repeat(500) }, expectedVersion: 0 });
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const before = written;
      const file = join(work, 'online.agentbak');
      const backup = await ctl(['backup', file, '--data-dir', dir]);
      expect(backup, backup.err).toMatchObject({ code: 0 });
      writing = false;
      await writer;
      const target = fresh('online');
      expect((await ctl(['restore', file, '--data-dir', target])).code).toBe(0);
      const restored = new Set(await ids(target));
      for (let i = 0; i < before; i++) expect(restored.has(`w-${i}`)).toBe(true);
      expect(written).toBeGreaterThan(before); // the store went on taking writes meanwhile
    } finally {
      writing = false;
      await writer;
      await store.close();
    }
  }, 120_000);

  describe('refuses, and writes nothing, when the archive', () => {
    async function refused(file: string, message: string | RegExp, env?: Record<string, string>) {
      const target = fresh('refused');
      const restore = await ctl(['restore', file, '--data-dir', target], env);
      expect(restore.code).toBe(1);
      expect(restore.err).toMatch(message);
      expect(existsSync(target) ? readdirSync(target) : []).toEqual([]);
    }
    const variant = (mutate: (bytes: Buffer) => Buffer) => {
      const file = fresh('variant');
      writeFileSync(file, mutate(Buffer.from(readFileSync(archive))));
      return file;
    };

    it('is not one', async () => {
      await refused(
        variant(() => Buffer.from('{"hello": "world"}\n')),
        'is not a backup archive of this service',
      );
      await refused(fresh('missing'), 'cannot be read (ENOENT)');
    });

    it('was cut short or grew', async () => {
      await refused(
        variant((bytes) => bytes.subarray(0, bytes.length - 1000)),
        /is truncated: \d+ bytes of the \d+ its manifest gives/,
      );
      await refused(
        variant((bytes) => bytes.subarray(0, 40)),
        'is truncated',
      );
      await refused(
        variant((bytes) => Buffer.concat([bytes, Buffer.from('trailing')])),
        '8 bytes follow the end its manifest gives',
      );
    });

    it('was changed', async () => {
      const { storeOffset, manifest } = manifestOf(archive);
      const flip = (at: number) =>
        variant((bytes) => {
          bytes[at] = bytes[at]! ^ 0x40;
          return bytes;
        });
      await refused(flip(storeOffset + 5000), 'its store section does not match its checksum');
      await refused(flip(storeOffset + manifest.store.bytes + 3), 'its secrets section does not match its checksum');
      await refused(flip(MAGIC_BYTES + 4 + 10), 'its manifest does not match its checksum');
    });

    it('is of a newer format, or its manifest says something else', async () => {
      const { manifest, rewrite } = manifestOf(archive);
      const newer = fresh('newer');
      rewrite({ ...manifest, formatVersion: 2 }, newer);
      await refused(newer, 'was written in backup format 2; this agentctl reads format 1');
      const mongo = fresh('mongo');
      rewrite({ ...manifest, profile: 'production' }, mongo);
      await refused(mongo, /its manifest is not one this agentctl wrote \(profile: /);
      // A manifest claiming another store checksum: the store section no longer matches it.
      const other = fresh('other');
      rewrite({ ...manifest, store: { ...manifest.store, sha256: 'a'.repeat(64) } }, other);
      await refused(other, 'its store section does not match its checksum');
    });

    it('is opened with another passphrase, or its secrets come from another archive', async () => {
      await refused(archive, 'wrong passphrase: the secrets section does not open with it', { BACKUP_PASSPHRASE: 'not the passphrase' });
      // A second backup of the same store: its sealed secrets moved into the first archive (checksums fixed) do not open there.
      const second = join(work, 'second.agentbak');
      expect((await ctl(['backup', second, '--data-dir', source])).code).toBe(0);
      const a = manifestOf(archive);
      const b = manifestOf(second);
      const swapped = fresh('swapped');
      const bBytes = readFileSync(second);
      const bSecrets = bBytes.subarray(b.storeOffset + b.manifest.store.bytes);
      const aBytes = readFileSync(archive);
      const json = Buffer.from(JSON.stringify({ ...a.manifest, secrets: b.manifest.secrets }));
      const head = Buffer.alloc(4);
      head.writeUInt32BE(json.length);
      writeFileSync(
        swapped,
        Buffer.concat([
          aBytes.subarray(0, MAGIC_BYTES),
          head,
          json,
          createHash('sha256').update(json).digest(),
          aBytes.subarray(a.storeOffset, a.storeOffset + a.manifest.store.bytes),
          bSecrets,
        ]),
      );
      await refused(swapped, 'wrong passphrase');
    }, 60_000);
  });

  it('sets up only an empty directory unless --force, and never one a process has open', async () => {
    const target = await dataDirWith(1);
    expect(await ctl(['restore', archive, '--data-dir', target])).toMatchObject({
      code: 1,
      err: expect.stringContaining('is not empty; restore sets up a new data directory (--force replaces its store and secrets)'),
    });
    const open = await openStore(target);
    try {
      expect(await ctl(['restore', archive, '--data-dir', target, '--force'])).toMatchObject({
        code: 1,
        err: expect.stringContaining('restore never replaces the data of a running service'),
      });
    } finally {
      await open.close();
    }
    expect(await ids(target)).toEqual(['t-0']);
    // The replaced service's replay history: a restore must not leave it for the restored one.
    const history = embeddedBusHistoryDir(target);
    mkdirSync(history);
    writeFileSync(join(history, 'data.mdb'), 'events of the replaced timeline');
    const forced = await ctl(['restore', '--force', archive, '--data-dir', target]);
    expect(forced, forced.err).toMatchObject({ code: 0 });
    expect(await ids(target)).toEqual(await ids(source));
    expect(existsSync(history)).toBe(false);
    expect(readdirSync(target).filter((name) => name.startsWith('.restore-'))).toEqual([]);
  }, 120_000);

  it('backs up only a data directory with a store, into a new file, with a passphrase', async () => {
    expect(await ctl(['backup', archive, '--data-dir', source])).toMatchObject({
      code: 1,
      err: expect.stringContaining('exists; a backup never overwrites a file'),
    });
    expect(await ctl(['backup', fresh('x'), '--data-dir', fresh('empty')])).toMatchObject({
      code: 1,
      err: expect.stringContaining('holds no embedded store'),
    });
    expect(await ctl(['backup', fresh('x'), '--data-dir', source], { BACKUP_PASSPHRASE: 'short' })).toMatchObject({
      code: 1,
      err: 'the backup passphrase must be at least 12 characters',
    });
    expect(await ctl(['backup', fresh('x'), '--data-dir', source], {})).toMatchObject({
      code: 1,
      err: expect.stringContaining('no passphrase for the secrets'),
    });
    const passphraseFile = fresh('pass');
    writeFileSync(passphraseFile, `${PASSPHRASE}\n`);
    const target = fresh('from-file');
    expect((await ctl(['restore', archive, '--data-dir', target, '--passphrase-file', passphraseFile], {})).code).toBe(0);
    expect(await ctl(['restore', archive])).toMatchObject({ code: 2, err: expect.stringContaining('Usage: agentctl restore') });
    expect(await ctl(['backup'])).toMatchObject({ code: 2 });
  }, 120_000);

  it('says the schedules in Redis are not in the archive when REDIS_URL is set, and how to keep and re-arm them', async () => {
    const withRedis = { BACKUP_PASSPHRASE: PASSPHRASE, REDIS_URL: 'redis://127.0.0.1:6379' };
    const backup = await ctl(['backup', fresh('redis'), '--data-dir', source], withRedis);
    expect(backup.code).toBe(0);
    expect(backup.out).toContain('not included: the schedules in Redis (REDIS_URL is set)');
    expect(backup.out).toContain('redis-cli BGSAVE');
    expect(backup.out).toContain('does not rebuild DCA schedules from the stored strategies');
    expect(backup.out).toContain('POST /api/nest/trading/dca/resume/:userId {name}');
    const restore = await ctl(['restore', archive, '--data-dir', fresh('restored-redis')], withRedis);
    expect(restore.out).toContain('not restored: the schedules in Redis');
    // Without Redis the schedules are in the store, and nothing is said.
    expect((await ctl(['backup', fresh('plain'), '--data-dir', source])).out).not.toContain('Redis');
  }, 120_000);
});
