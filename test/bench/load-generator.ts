import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';

const run = promisify(execFile);
const AUTOCANNON = fileURLToPath(new URL('../../node_modules/autocannon/autocannon.js', import.meta.url));

export interface LoadResult {
  rps: number;
  /** Answers received in the whole run. */
  requests: number;
  p50: number;
  p99: number;
}

/**
 * Loads `url` with autocannon from a separate process, so the load generator does not
 * share the server's event loop; 50 connections. Any non-2xx answer fails the run.
 */
export async function loadUrl(
  url: string,
  options: { seconds: number; headers?: Record<string, string>; method?: 'GET' | 'POST'; body?: string },
): Promise<LoadResult> {
  const headers = Object.entries(options.headers ?? {}).flatMap(([k, v]) => ['-H', `${k}=${v}`]);
  const request = options.method === 'POST' ? ['-m', 'POST', ...(options.body === undefined ? [] : ['-b', options.body])] : [];
  const args = [AUTOCANNON, '--json', '-c', '50', '-d', String(options.seconds), ...request, ...headers, url];
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const result = JSON.parse(stdout) as autocannon.Result;
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  return { rps: result.requests.average, requests: result.requests.total, p50: result.latency.p50, p99: result.latency.p99 };
}
