/**
 * One service process per data directory unless REDIS_URL is set. Without Redis, events
 * (a key's revocation, a logout) stay inside the process that made them, so a second process
 * on the same store would go on accepting a revoked key from its credential cache; it is
 * refused at start instead, with a message saying why.
 *
 * The lock is a Unix socket the holder listens on (`DATA_DIR/instance.sock`): the kernel
 * drops the listener when the process dies, however it dies, so a stale file is recognised
 * by a refused connection, never by a pid that another process (a container's PID 1) may
 * have taken since. Reclaiming a stale socket happens under a short exclusive file, so two
 * processes starting together on it cannot both win.
 */
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { connect, createServer, type Server } from 'node:net';
import { join, relative } from 'node:path';
import type { AppConfig } from '../config/config.schema.js';
import { ConfigError } from '../config/load-config.js';

const SOCKET_FILE = 'instance.sock';
/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH = 107;
/** A reclaim takes milliseconds; a file this old was left by a process that died in one. */
const STALE_RECLAIM_MS = 5_000;
const PROBE_TIMEOUT_MS = 2_000;

export interface DataDirLock {
  /** Stops listening (the socket file goes with it). Idempotent. */
  release(): Promise<void>;
}

/** Whether a service process with `config` takes its data directory for itself: without Redis. */
export function locksDataDir(config: Pick<AppConfig, 'redis'>): boolean {
  return !config.redis;
}

/** Takes the data directory for this process, or throws a ConfigError naming DATA_DIR and REDIS_URL. */
export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const path = socketPath(dataDir);
  const reclaim = join(dataDir, `${SOCKET_FILE}.reclaim`);
  for (let attempt = 0; attempt < 50; attempt++) {
    const server = await listenOn(path);
    if (server) return held(server);
    if ((await probe(path)) === 'alive') throw inUse(dataDir);
    // Nobody listens: the socket of a process that died. Replace it, one process at a time.
    if (!tryCreate(reclaim)) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      continue;
    }
    try {
      if ((await probe(path)) === 'alive') throw inUse(dataDir);
      rmSync(path, { force: true });
      const reclaimed = await listenOn(path);
      if (reclaimed) return held(reclaimed);
    } finally {
      rmSync(reclaim, { force: true });
    }
  }
  throw inUse(dataDir);
}

/**
 * Whether a service process holds `dataDir`'s lock now (a process listens on its socket).
 * `agentctl restore --force` asks before it replaces a data directory's store.
 */
export async function dataDirLocked(dataDir: string): Promise<boolean> {
  let path: string;
  try {
    path = socketPath(dataDir);
  } catch {
    return false; // too long for a lock socket: no process can hold one there
  }
  return (await probe(path)) === 'alive';
}

function inUse(dataDir: string): ConfigError {
  return new ConfigError([
    `DATA_DIR: ${dataDir} is in use by another service process. Without REDIS_URL one process serves a data directory: ` +
      'revocations and logouts would not reach the other one. Stop it, give this one its own DATA_DIR, or set REDIS_URL on both.',
  ]);
}

/** The socket's path as given, or relative to the working directory when only that fits. */
function socketPath(dataDir: string): string {
  const absolute = join(dataDir, SOCKET_FILE);
  if (Buffer.byteLength(absolute) <= MAX_SOCKET_PATH) return absolute;
  const near = relative(process.cwd(), absolute);
  if (Buffer.byteLength(near) <= MAX_SOCKET_PATH) return near;
  throw new ConfigError([
    `DATA_DIR: ${dataDir} is too long for its lock socket (at most ${MAX_SOCKET_PATH - SOCKET_FILE.length - 1} bytes); use a shorter path, or set REDIS_URL`,
  ]);
}

/** Listens on `path`; undefined when something is there already. */
function listenOn(path: string): Promise<Server | undefined> {
  // A probe only needs to connect; it hangs up at once (a reset is expected, not an error).
  const server = createServer((socket) => {
    socket.on('error', () => undefined);
    socket.end();
  });
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => (error.code === 'EADDRINUSE' ? resolve(undefined) : reject(error)));
    server.listen(path, () => {
      // The lock must not keep a process alive that is otherwise done.
      server.unref();
      resolve(server);
    });
  });
}

function probe(path: string): Promise<'alive' | 'stale'> {
  return new Promise((resolve) => {
    const socket = connect(path);
    const done = (state: 'alive' | 'stale') => {
      socket.destroy();
      resolve(state);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done('alive')); // listening but slow: still someone's
    socket.once('connect', () => done('alive'));
    socket.once('error', (error: NodeJS.ErrnoException) =>
      done(error.code === 'ECONNREFUSED' || error.code === 'ENOENT' ? 'stale' : 'alive'),
    );
  });
}

function tryCreate(file: string): boolean {
  try {
    closeSync(openSync(file, 'wx', 0o600));
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Left by a process that died during its reclaim.
    try {
      if (Date.now() - statSync(file).mtimeMs > STALE_RECLAIM_MS) rmSync(file, { force: true });
    } catch {
      // released meanwhile
    }
    return false;
  }
}

function held(server: Server): DataDirLock {
  let released: Promise<void> | undefined;
  return {
    // node removes the socket file when the server closes.
    release: () => (released ??= new Promise((resolve) => server.close(() => resolve()))),
  };
}
