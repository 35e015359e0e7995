import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { deleteRedisKeys, TEST_REDIS_URL } from './redis.js';
import { ServiceProcess } from './service-process.js';
import { PUBLIC_URL } from './test-service.js';

/**
 * Two service processes on one data directory and one Redis key prefix (the cross-process
 * profile), started before the suite and stopped after it, their directory and Redis keys
 * removed. Call inside a `describe`; read the processes in tests (`pair.a`, `pair.b`).
 */
export function processPairOnRedis(name: string): { readonly a: ServiceProcess; readonly b: ServiceProcess } {
  const dataDir = mkdtempSync(join(tmpdir(), `${name}-`));
  const prefix = `test-${randomUUID()}`;
  let started: [ServiceProcess, ServiceProcess] | undefined;
  beforeAll(async () => {
    const env = { DATA_DIR: dataDir, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, PUBLIC_URL };
    started = await Promise.all([ServiceProcess.start(env), ServiceProcess.start(env)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all((started ?? []).map((process) => process.stop()));
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(prefix);
  }, 60_000);
  const get = (i: 0 | 1) => {
    if (!started) throw new Error('the process pair is not started (use it inside tests)');
    return started[i];
  };
  return {
    get a() {
      return get(0);
    },
    get b() {
      return get(1);
    },
  };
}
