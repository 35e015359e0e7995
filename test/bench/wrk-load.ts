import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { LoadResult } from './load-generator.js';

const run = promisify(execFile);

/** The line the script's `done` writes, found among wrk's own report. */
const MARK = 'WRK_RESULT ';

/**
 * Lua of one wrk run: the request, and a `done` that prints the figures as one JSON line.
 * Long brackets quote the body and headers as they are (a level no value contains).
 */
function script(method: string, body: string | undefined, headers: Record<string, string>): string {
  const quote = (text: string) => {
    let level = '';
    while (text.includes(`]${level}]`)) level += '=';
    return `[${level}[${text}]${level}]`;
  };
  const lines = [`wrk.method = ${quote(method)}`];
  if (body !== undefined) lines.push(`wrk.body = ${quote(body)}`);
  for (const [name, value] of Object.entries(headers)) lines.push(`wrk.headers[ ${quote(name)} ] = ${quote(value)}`);
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    `  io.write(string.format('${MARK}{"requests":%d,"us":%d,"status":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"p50":%d,"p99":%d}\\n',`,
    '    summary.requests, summary.duration, e.status, e.connect, e.read, e.write, e.timeout,',
    '    latency:percentile(50), latency:percentile(99)))',
    'end',
  );
  return lines.join('\n');
}

/**
 * Loads `url` with wrk (one thread, 50 connections) pinned to core `core` (1 by default:
 * the bench pins the server to core 0), so the load generator neither shares the server's
 * event loop nor its core and costs little CPU itself. Any answer >= 400 or socket error
 * fails the run.
 */
export async function wrkLoad(
  url: string,
  options: { seconds: number; headers?: Record<string, string>; method?: 'GET' | 'POST'; body?: string; core?: number },
): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'wrk-'));
  const file = join(dir, 'request.lua');
  writeFileSync(file, script(options.method ?? 'GET', options.body, options.headers ?? {}));
  try {
    // autocannon's 10 s timeout: on a loaded machine a slow peer's answer is late, not lost.
    const args = ['-c', String(options.core ?? 1), 'wrk', '-t1', '-c50', `-d${options.seconds}s`, '--timeout', '10s', '-s', file, url];
    const { stdout } = await run('taskset', args, { maxBuffer: 1024 * 1024 });
    const line = stdout.split('\n').find((l) => l.startsWith(MARK));
    if (!line) throw new Error(`wrk printed no result: ${stdout}`);
    const r = JSON.parse(line.slice(MARK.length)) as Record<
      'requests' | 'us' | 'status' | 'connect' | 'read' | 'write' | 'timeout' | 'p50' | 'p99',
      number
    >;
    // A field the script did not print would read as undefined and hide the errors: refuse it.
    const missing = Object.entries(r).filter(([, value]) => !Number.isFinite(value));
    if (missing.length > 0 || Object.keys(r).length !== 9) throw new Error(`wrk printed an incomplete result: ${line}`);
    const { status, connect, read, write, timeout } = r;
    if (status + connect + read + write + timeout > 0)
      throw new Error(`${url}: ${JSON.stringify({ status, connect, read, write, timeout })} (answers >= 400, socket errors, timeouts)`);
    return { rps: r.requests / (r.us / 1e6), requests: r.requests, p50: r.p50 / 1000, p99: r.p99 / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Pins every thread of this process (the server under test) to `core`, away from wrk's. */
export async function pinThisProcess(core = 0): Promise<void> {
  await run('taskset', ['-a', '-p', '-c', String(core), String(process.pid)]);
}
