import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Session } from 'node:inspector/promises';
import type { Profiler } from 'node:inspector';

/** Runs `phase` under V8's sampling profiler when `path` is set, and writes the profile there. */
export function profiled<T>(
  path: string | undefined,
  phase: () => Promise<T>,
  label = 'the measured phase',
  options: { top?: number } = {},
): Promise<T> {
  return sampled(path, phase, {
    start: async (session) => {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 250 }); // µs: finer than --cpu-prof's 1 ms default
      await session.post('Profiler.start');
    },
    stop: async (session) => (await session.post('Profiler.stop')).profile,
    done: (profile) => {
      console.log(`CPU profile of ${label}: ${path}`);
      if (options.top) console.log(topFrames(profile, options.top));
    },
  });
}

/**
 * `phase` between `start` and `stop` of an inspector session in this process when `path` is
 * set; what `stop` answers is written there as JSON, then handed to `done`.
 */
async function sampled<T, P>(
  path: string | undefined,
  phase: () => Promise<T>,
  steps: { start: (session: Session) => Promise<void>; stop: (session: Session) => Promise<P>; done: (profile: P) => void },
): Promise<T> {
  if (!path) return phase();
  const session = new Session();
  session.connect();
  await steps.start(session);
  try {
    return await phase();
  } finally {
    const profile = await steps.stop(session);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(profile));
    session.disconnect();
    steps.done(profile);
  }
}

/**
 * The `count` frames with the most self time (samples in the frame itself, not its callees),
 * as a markdown table: share of the busy samples (idle excluded), function, file:line.
 */
function topFrames(profile: Profiler.Profile, count: number): string {
  const selfOf = new Map<number, number>();
  for (const id of profile.samples ?? []) selfOf.set(id, (selfOf.get(id) ?? 0) + 1);
  const byFrame = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const samples = selfOf.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (samples === 0 || functionName === '(idle)') continue;
    busy += samples;
    const file = url.replace(/^.*\/(node_modules\/)/, '$1').replace(/^file:\/\/.*?\/(src|kernel|adapters|machines|test)\//, '$1/');
    const key = `${functionName || '(anonymous)'} | ${file ? `${file}:${lineNumber + 1}` : ''}`;
    byFrame.set(key, (byFrame.get(key) ?? 0) + samples);
  }
  const rows = [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, count);
  return [
    '| self % of busy | function | where |',
    '|---|---|---|',
    ...rows.map(([key, samples]) => `| ${((samples / Math.max(1, busy)) * 100).toFixed(1)} | ${key} |`),
  ].join('\n');
}

/**
 * Runs `phase` under V8's sampling heap profiler when `path` is set (a sample every 32 KB
 * allocated, objects collected since included: what the phase allocates, not what it keeps),
 * and writes the profile there (`.heapprofile`, for DevTools' Memory tab or speedscope).
 */
export function heapSampled<T>(path: string | undefined, phase: () => Promise<T>, label = 'the measured phase'): Promise<T> {
  return sampled(path, phase, {
    start: async (session) => {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 32 * 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    },
    stop: async (session) => (await session.post('HeapProfiler.stopSampling')).profile,
    done: () => console.log(`Allocation profile of ${label}: ${path}`),
  });
}
