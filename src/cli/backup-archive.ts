/**
 * The backup archive: one file that says what it is, so a restore can refuse a file that is
 * not one, was cut short, or was changed, before it writes anything.
 *
 *   MAGIC (16 bytes) | manifest length (uint32, big-endian) | manifest (JSON) | SHA-256 of the manifest (32 bytes)
 *   | the store (the LMDB copy's data.mdb, `store.bytes` bytes) | the sealed secrets (`secrets.bytes` bytes) | end of file
 *
 * The manifest names the format and its version, when the copy was taken, the service version
 * that wrote it, and each section's length and SHA-256. A plain layout rather than tar or zip:
 * Node has no archive reader built in, and two sections need no directory.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { finished, pipeline } from 'node:stream/promises';
import { Transform } from 'node:stream';
import { z } from 'zod';
import { sealSchema } from './passphrase-seal.js';

const MAGIC = Buffer.from('AGENTSVC-BACKUP\n', 'latin1');
const FORMAT = 'agent-runtime-service backup';
export const FORMAT_VERSION = 1;
const MAX_MANIFEST_BYTES = 64 * 1024;
const DIGEST_BYTES = 32;

const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/);
const size = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

const manifestSchema = z.object({
  format: z.literal(FORMAT),
  formatVersion: z.literal(FORMAT_VERSION),
  /** When the copy began: every write acknowledged before it is in the store section. */
  createdAt: z.iso.datetime(),
  service: z.object({ name: z.string(), version: z.string() }),
  profile: z.literal('embedded'),
  store: z.object({
    engine: z.literal('lmdb'),
    file: z.literal('data.mdb'),
    bytes: size,
    sha256: sha256Hex,
    /** Free pages left out (LMDB's compacting copy); false when LMDB could not compact. */
    compacted: z.boolean(),
    documents: size,
  }),
  secrets: z.object({
    /** The names in the data directory's secrets.json when the backup was taken (never values). */
    names: z.array(z.string()),
    bytes: size,
    sha256: sha256Hex,
    seal: sealSchema,
  }),
});
export type Manifest = z.infer<typeof manifestSchema>;

/** Why a file cannot be restored, in words an operator acts on. */
export class ArchiveError extends Error {}

/** What the secrets' seal authenticates besides them: this archive's identity. */
export function archiveBinding(manifest: Pick<Manifest, 'formatVersion' | 'createdAt' | 'store'>): Buffer {
  return Buffer.from([FORMAT, manifest.formatVersion, manifest.createdAt, manifest.store.sha256].join('\n'));
}

export function manifestBase(
  createdAt: string,
  service: Manifest['service'],
): Pick<Manifest, 'format' | 'formatVersion' | 'createdAt' | 'service' | 'profile'> {
  return { format: FORMAT, formatVersion: FORMAT_VERSION, createdAt, service, profile: 'embedded' };
}

/** SHA-256 of a file, streamed. */
export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}

/** Writes the archive to `file` (created, never overwritten) and flushes it to disk. */
export async function writeArchive(file: string, manifest: Manifest, storeFile: string, sealedSecrets: Buffer): Promise<void> {
  const json = Buffer.from(JSON.stringify(manifest));
  const length = Buffer.alloc(4);
  length.writeUInt32BE(json.length);
  const digest = createHash('sha256').update(json).digest();
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  out.write(Buffer.concat([MAGIC, length, json, digest]));
  for await (const chunk of createReadStream(storeFile)) if (!out.write(chunk)) await once(out, 'drain');
  out.end(sealedSecrets);
  await finished(out);
  const handle = await open(file, 'r+');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export interface ArchiveLayout {
  manifest: Manifest;
  storeOffset: number;
  secretsOffset: number;
}

/**
 * Reads and checks the archive's head: the magic, the manifest and its digest, the format
 * version, and that the file is exactly as long as its sections say (a cut or appended file
 * is refused here, before any section is read).
 */
export async function readArchiveLayout(file: string): Promise<ArchiveLayout> {
  let handle: FileHandle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    throw new ArchiveError(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const { size: fileBytes } = await handle.stat();
    const head = await readAt(handle, 0, MAGIC.length + 4);
    if (head.length < MAGIC.length || !head.subarray(0, MAGIC.length).equals(MAGIC))
      throw new ArchiveError(`${file}: is not a backup archive of this service (it does not begin with its signature)`);
    if (head.length < MAGIC.length + 4) throw truncated(file, fileBytes);
    const manifestBytes = head.readUInt32BE(MAGIC.length);
    if (manifestBytes === 0 || manifestBytes > MAX_MANIFEST_BYTES)
      throw new ArchiveError(`${file}: is damaged: its manifest length (${manifestBytes} bytes) is not plausible`);
    const manifestAt = MAGIC.length + 4;
    const tail = await readAt(handle, manifestAt, manifestBytes + DIGEST_BYTES);
    if (tail.length < manifestBytes + DIGEST_BYTES) throw truncated(file, fileBytes);
    const json = tail.subarray(0, manifestBytes);
    if (!createHash('sha256').update(json).digest().equals(tail.subarray(manifestBytes)))
      throw new ArchiveError(`${file}: is damaged: its manifest does not match its checksum`);
    const manifest = parseManifest(file, json);
    const storeOffset = manifestAt + manifestBytes + DIGEST_BYTES;
    const secretsOffset = storeOffset + manifest.store.bytes;
    const expected = secretsOffset + manifest.secrets.bytes;
    if (fileBytes < expected) throw truncated(file, fileBytes, expected);
    if (fileBytes > expected)
      throw new ArchiveError(`${file}: is damaged: ${fileBytes - expected} bytes follow the end its manifest gives (${expected} bytes)`);
    return { manifest, storeOffset, secretsOffset };
  } finally {
    await handle.close();
  }
}

function parseManifest(file: string, json: Buffer): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(json.toString('utf8'));
  } catch {
    throw new ArchiveError(`${file}: is damaged: its manifest is not JSON`);
  }
  const version = (raw as { formatVersion?: unknown } | null)?.formatVersion;
  if (typeof version === 'number' && version > FORMAT_VERSION)
    throw new ArchiveError(
      `${file}: was written in backup format ${version}; this agentctl reads format ${FORMAT_VERSION}: restore with a newer one`,
    );
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ArchiveError(
      `${file}: its manifest is not one this agentctl wrote (${issue.path.join('.') || 'manifest'}: ${issue.message})`,
    );
  }
  return parsed.data;
}

/** Copies `bytes` bytes at `offset` of `file` into `target`; answers their SHA-256. */
export async function extractSection(file: string, offset: number, bytes: number, target: string): Promise<string> {
  const hash = createHash('sha256');
  const tee = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  const source = bytes === 0 ? [] : createReadStream(file, { start: offset, end: offset + bytes - 1 });
  await pipeline(source, tee, createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  return hash.digest('hex');
}

/** SHA-256 of `bytes` bytes at `offset` of `file`, streamed. */
export async function sectionSha256(file: string, offset: number, bytes: number): Promise<string> {
  const hash = createHash('sha256');
  if (bytes > 0) await pipeline(createReadStream(file, { start: offset, end: offset + bytes - 1 }), hash);
  return hash.digest('hex');
}

/** Reads a small section whole. */
export async function readSection(file: string, offset: number, bytes: number): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    return await readAt(handle, offset, bytes);
  } finally {
    await handle.close();
  }
}

async function readAt(handle: FileHandle, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  let read = 0;
  while (read < length) {
    const { bytesRead } = await handle.read(buffer, read, length - read, position + read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  return buffer.subarray(0, read);
}

function truncated(file: string, actual: number, expected?: number): ArchiveError {
  return new ArchiveError(
    `${file}: is truncated: ${actual} bytes${expected === undefined ? '' : ` of the ${expected} its manifest gives`}; take the backup again or use another copy`,
  );
}
