/**
 * CPU per appended audit entry: the audit trail alone (AuditLog over the embedded LMDB store,
 * chain heads signed with a SigningKeys ring's ES256 key), without a service around it.
 * `npm run bench:audit`. Two shapes of traffic:
 * - sparse: many subjects, one entry each per flush, the clock 10 s on between flushes, so
 *   every append is due a signed head (an agent called now and then: the per-flow case);
 * - busy: a few subjects, many entries each per flush, 100 ms apart (signatures are rare).
 * Each prints CPU µs per entry (user + kernel), wall µs per entry and the store reads per
 * flush of the chain heads and of the key ring, each the lowest of REPEATS runs (a shared
 * machine's load only ever adds to a figure). AUDIT_BENCH_BASELINE_REF=<git ref> (default
 * `main`; `none` to skip) first runs this same bench on that commit in a child process and
 * prints both runs' figures with their ratios. AUDIT_BENCH_CPU_PROFILE=<file> profiles the
 * measured phases and prints the frames with the most self time.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { LmdbStore } from '../../adapters/lmdb/lmdb-store.adapter.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { KeyRingSigner } from '../../src/identity/keys/checkpoint-signer.js';
import { SIGNING_KEY_COLLECTIONS, SigningKeys } from '../../src/identity/keys/signing-keys.service.js';
import { AUDIT_COLLECTIONS, AuditLog } from '../../src/operations/audit-log.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { isBaselineChild, printRatios, runBaseline, writeResult, type Figures } from './baseline-run.js';
import { profiled } from './cpu-profile.js';

const BASELINE_REF = process.env.AUDIT_BENCH_BASELINE_REF ?? 'main';
const CPU_PROFILE = process.env.AUDIT_BENCH_CPU_PROFILE;
const CHECKPOINT_MS = 10_000;

interface Shape {
  name: 'sparse' | 'busy';
  subjects: number;
  perSubject: number;
  rounds: number;
  stepMs: number;
}
const SHAPES: Shape[] = [
  { name: 'sparse', subjects: 200, perSubject: 1, rounds: 25, stepMs: CHECKPOINT_MS },
  { name: 'busy', subjects: 10, perSubject: 25, rounds: 120, stepMs: 100 },
];
const WARMUP_ROUNDS = 3;
const REPEATS = Number(process.env.AUDIT_BENCH_REPEATS ?? 3);

/** An entry as the invoker records it: every field the chain hashes is filled. */
function entry(at: number, subject: string, n: number): AuditEntry {
  return {
    at,
    surface: 'mcp',
    operation: 'trading_solana_aggregator_swap',
    principal: { type: 'agent-key', id: 'key_01HZX3K9Q4V7' },
    credentialPrefix: 'mcpk_3f9a',
    scope: 'trade',
    subject,
    argsDigest: 'b1946ac92492d2347c6235b4d2611184b1946ac92492d2347c6235b4d2611184',
    outcome: n % 7 === 0 ? 'error' : 'ok',
    ...(n % 7 === 0 ? { error: 'INSUFFICIENT_BALANCE' } : {}),
    latencyMs: 12 + (n % 30),
    requestId: `req_${n.toString(36).padStart(10, '0')}`,
    correlationId: `cor_${n.toString(36).padStart(10, '0')}`,
  };
}

/** Counts the store reads of the two collections this work is about. */
function countReads(store: StorePort): Map<string, number> {
  const reads = new Map<string, number>();
  const get = store.get.bind(store);
  store.get = ((collection: string, id: string) => {
    reads.set(collection, (reads.get(collection) ?? 0) + 1);
    return get(collection, id);
  }) as StorePort['get'];
  return reads;
}

async function runShape(shape: Shape): Promise<Figures> {
  const dir = await mkdtemp(join(tmpdir(), 'audit-bench-'));
  const clock = new ManualClock(Date.now());
  const store = new LmdbStore({ path: dir, clock });
  try {
    await store.init([...AUDIT_COLLECTIONS, ...SIGNING_KEY_COLLECTIONS]);
    const keys = new SigningKeys(store, new SecretBox('a-bench-secret-of-at-least-32-characters!!', 'identity-signing-key'), clock);
    await keys.ensureActive();
    const audit = new AuditLog(store, clock, pino({ level: 'silent' }));
    audit.startCheckpoints(new KeyRingSigner(keys), CHECKPOINT_MS);
    const reads = countReads(store);
    let n = 0;
    const round = async () => {
      for (let s = 0; s < shape.subjects; s++)
        for (let i = 0; i < shape.perSubject; i++) audit.record(entry(clock.now(), `agent:agt_${s}`, n++));
      await audit.flush();
      await clock.advance(shape.stepMs);
    };
    for (let r = 0; r < WARMUP_ROUNDS; r++) await round();
    reads.clear();
    const entries = shape.subjects * shape.perSubject * shape.rounds;
    const cpu = process.cpuUsage();
    const wall = performance.now();
    await profiled(
      CPU_PROFILE?.replace(/(\.cpuprofile)?$/, `.${shape.name}.cpuprofile`),
      async () => {
        for (let r = 0; r < shape.rounds; r++) await round();
      },
      `the ${shape.name} shape`,
      { top: 15 },
    );
    const wallMs = performance.now() - wall;
    const used = process.cpuUsage(cpu);
    await audit.stopCheckpoints();
    return {
      [`${shape.name}.cpuUs`]: (used.user + used.system) / entries,
      [`${shape.name}.systemUs`]: used.system / entries,
      [`${shape.name}.wallUs`]: (wallMs * 1000) / entries,
      [`${shape.name}.headReads`]: (reads.get('audit_heads') ?? 0) / shape.rounds,
      [`${shape.name}.keyReads`]: (reads.get('identity_signing_keys') ?? 0) / shape.rounds,
    };
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

let baseline: Figures | undefined;
if (BASELINE_REF !== 'none' && !isBaselineChild)
  baseline = await runBaseline({
    ref: BASELINE_REF,
    benchFile: 'test/bench/audit.bench.ts',
    files: ['test/bench/baseline-run.ts', 'test/bench/cpu-profile.ts'],
    env: CPU_PROFILE ? { AUDIT_BENCH_CPU_PROFILE: CPU_PROFILE.replace(/(\.cpuprofile)?$/, '.baseline') } : {},
  });

const figures: Figures = {};
console.log(
  `load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
for (const shape of SHAPES) {
  const result: Figures = {};
  for (let r = 0; r < REPEATS; r++)
    for (const [key, value] of Object.entries(await runShape(shape))) result[key] = Math.min(result[key] ?? value, value);
  Object.assign(figures, result);
  const get = (key: string) => result[`${shape.name}.${key}`]!;
  console.log(
    `${shape.name}: ${shape.subjects} subjects × ${shape.perSubject} entries a flush, ${shape.rounds} flushes ${shape.stepMs} ms apart: ` +
      `CPU ${get('cpuUs').toFixed(1)} µs an entry (kernel ${get('systemUs').toFixed(1)}), wall ${get('wallUs').toFixed(1)} µs, ` +
      `a flush reads audit_heads ${get('headReads').toFixed(1)}×, identity_signing_keys ${get('keyReads').toFixed(2)}×`,
  );
}
writeResult(figures);
for (const shape of SHAPES)
  printRatios(`audit appends, ${shape.name}`, figures, baseline, {
    [`${shape.name}.cpuUs`]: 'CPU µs per entry',
    [`${shape.name}.systemUs`]: 'of which kernel, µs per entry',
    [`${shape.name}.wallUs`]: 'wall µs per entry',
    [`${shape.name}.headReads`]: 'audit_heads reads per flush',
    [`${shape.name}.keyReads`]: 'identity_signing_keys reads per flush',
  });
