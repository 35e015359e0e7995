/**
 * Time from `npm start` to a healthy `/healthz` on the embedded profile with 10,000 agents
 * stored (100 users of 100 agents, seeded through the agents service as sign-ins and
 * creations store them): the first start after install (the build outputs removed: the
 * server's `dist/server`, the console's `console/dist`, the widget's bundle, so everything is
 * built) and restarts on the same data with nothing to build.
 * Targets: first start <= 15 s, restart <= 3 s. The CPU the start used is printed beside the
 * time: on a busy machine the time is mostly waiting for a core.
 * Run: `npm run bench:startup` (BENCH_ROOT=<checkout> times another checkout's `npm start`;
 * BENCH_AGENTS and BENCH_RESTARTS change the counts; BENCH_DATA_DIR keeps the seeded data
 * there and reuses it on the next run).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '../../src/config/load-config.js';
import { resolveSecrets } from '../../src/config/secrets.js';
import { startService } from '../../src/composition/service.composition.js';
import { createLogger } from '../../src/observability/logger.js';
import { freePort } from '../support/free-port.js';
import { solanaWallet } from '../support/test-service.js';

const ROOT = resolve(process.env.BENCH_ROOT ?? join(import.meta.dirname, '../..'));
const AGENTS = Number(process.env.BENCH_AGENTS ?? 10_000);
const RESTARTS = Number(process.env.BENCH_RESTARTS ?? 3);
const PER_USER = 100;
const FIRST_START_TARGET_MS = 15_000;
const RESTART_TARGET_MS = 3_000;
/** What `npm install` leaves unbuilt: removed before the first start. */
const BUILD_OUTPUTS = ['dist/server', 'console/dist', 'dist/widget'];

/** Stores `AGENTS` agents in `dataDir` through a service started in this process (its secrets generated there). */
async function seed(dataDir: string): Promise<void> {
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, MAX_AGENTS_PER_USER: String(PER_USER) });
  const logger = createLogger({ level: 'warn' });
  const secrets = resolveSecrets({ profile: config.profile, dataDir, env: {} });
  const service = await startService({ config, secrets, logger });
  const { users, agents } = service.services;
  // Users side by side (the store folds concurrent writes into one commit), each user's agents one at a time (its agent cap is counted per creation).
  const owners = Array.from({ length: Math.ceil(AGENTS / PER_USER) }, (_, u) => u);
  await Promise.all(
    owners.map(async (u) => {
      const user = await users.ensureByWallet('solana', solanaWallet().address);
      for (let i = u * PER_USER; i < Math.min(AGENTS, (u + 1) * PER_USER); i++) await agents.create(user.id, { name: `bench agent ${i}` });
    }),
  );
  await service.stop();
}

/** CPU milliseconds a live process and its ended children (a build) have used, from /proc: on a shared machine it says what the start costs whatever the load. */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime, stime, cutime and cstime, fields 14 to 17 of proc(5), counted after the command's name (field 2).
  return (fields.slice(11, 15).reduce((sum, ticks) => sum + Number(ticks), 0) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

/** Starts `npm start` in ROOT on `dataDir`: the milliseconds until `/healthz` answered 200 and the CPU the server and npm used until then; then stops it. */
async function timeStart(dataDir: string): Promise<{ wall: number; cpu: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: String(port), DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));
  try {
    for (;;) {
      if (exitCode !== undefined) throw new Error(`npm start exited with ${exitCode} before it was healthy`);
      const healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.ok,
        () => false,
      );
      if (healthy) {
        const wall = performance.now() - started;
        // The server's own pid is in its log line announcing the url (npm runs it in a process of its own).
        const server = Number(/"pid":(\d+)[^\n]*"service listening"/.exec(stdout)?.[1]);
        return { wall, cpu: cpuMs(server) + cpuMs(child.pid!) };
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  } finally {
    // `npm start` execs node: the signal reaches the server, which stops and releases the data directory.
    child.kill('SIGTERM');
    await exited;
  }
}

const row = (name: string, target: number, time: { wall: number; cpu: number }) => ({
  case: name,
  'ms to healthy': Math.round(time.wall),
  'cpu ms (server + npm)': Math.round(time.cpu),
  'target ms': target,
});

const keep = process.env.BENCH_DATA_DIR;
const dataDir = keep ? resolve(keep) : mkdtempSync(join(tmpdir(), 'bench-startup-'));
try {
  if (keep && existsSync(join(dataDir, 'store'))) {
    console.log(`reusing the agents stored in ${dataDir}`);
  } else {
    const seeding = performance.now();
    await seed(dataDir);
    console.log(`seeded ${AGENTS} agents in ${Math.round(performance.now() - seeding)} ms`);
  }
  console.log(`timing npm start in ${ROOT}`);
  for (const output of BUILD_OUTPUTS) rmSync(join(ROOT, output), { recursive: true, force: true });
  const rows = [row('first start (builds)', FIRST_START_TARGET_MS, await timeStart(dataDir))];
  for (let i = 1; i <= RESTARTS; i++) rows.push(row(`restart ${i}`, RESTART_TARGET_MS, await timeStart(dataDir)));
  console.table(rows);
} finally {
  if (!keep) rmSync(dataDir, { recursive: true, force: true });
}
