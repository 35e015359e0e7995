import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, deleteRedisKeys } from '../support/redis.js';
import { ServiceProcess } from '../support/service-process.js';
import { Client, PUBLIC_URL, signInSolana } from '../support/test-service.js';

const CALLS_PER_PROCESS = 30;

describe('audit chain written by two processes sharing one store', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'audit-chain-two-'));
  const prefix = `test-${randomUUID()}`;
  const pair = {} as { a: ServiceProcess; b: ServiceProcess };
  // Two child processes start slowly on a loaded machine: a longer hook than the shared pair's.
  beforeAll(async () => {
    const env = { DATA_DIR: dataDir, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, PUBLIC_URL };
    [pair.a, pair.b] = await Promise.all([ServiceProcess.start(env), ServiceProcess.start(env)]);
  }, 240_000);
  afterAll(async () => {
    await Promise.all([pair.a?.stop(), pair.b?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(prefix);
  }, 60_000);

  it('stays one valid chain per agent when both record calls on it at once', async () => {
    const operator = new Client(pair.a.url);
    await signInSolana(operator);
    const { body: agent } = await operator.post('/api/nest/agents', { name: 'shared-audit' });
    const { body: key } = await operator.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'reader', scope: 'read' });
    const viaA = new Client(pair.a.url);
    const viaB = new Client(pair.b.url);
    viaA.bearer = viaB.bearer = key.secret;
    // Both processes audit calls on the same agent in their own batches, interleaved.
    const calls = Array.from({ length: CALLS_PER_PROCESS }, () => [
      viaA.get('/api/nest/agents/wallet/balance'),
      viaB.get('/api/nest/agents/wallet/balance'),
    ]).flat();
    const answers = await Promise.all(calls);
    // A loaded machine may make the Redis rate limiter answer late (503, audited like any refusal); never a 500.
    expect(answers.filter((answer) => answer.status >= 500 && answer.status !== 503)).toEqual([]);
    // Each process writes its own buffer on verify; wait for the other's timer-driven flush first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const verdict = await pair.b.ops<{ ok: boolean; chain: { entries: number; break?: unknown } }>(
      `/audit/verify?agentId=${encodeURIComponent(agent.agentId)}`,
    );
    expect(verdict.chain.break).toBeUndefined();
    expect(verdict.ok).toBe(true);
    // Every call that reached the agent is in its chain (refused ones are in the `none` chain, checked below).
    const served = answers.filter((answer) => answer.status === 200).length;
    expect(verdict.chain.entries).toBeGreaterThanOrEqual(served);
    const all = await pair.a.ops<{ ok: boolean; failures: unknown[] }>('/audit/verify');
    expect(all.failures).toEqual([]);
  }, 120_000);
});
