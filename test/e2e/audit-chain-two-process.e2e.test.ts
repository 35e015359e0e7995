import { describe, expect, it } from 'vitest';
import { processPairOnRedis } from '../support/process-pair.js';
import { Client, signInSolana } from '../support/test-service.js';

const CALLS_PER_PROCESS = 60;

describe('audit chain written by two processes sharing one store', () => {
  const pair = processPairOnRedis('audit-chain-two');

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
    expect(answers.filter((answer) => answer.status >= 500)).toEqual([]);
    // Each process writes its own buffer on verify; wait for the other's timer-driven flush first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const verdict = await pair.b.ops<{ ok: boolean; chain: { entries: number; break?: unknown } }>(
      `/audit/verify?agentId=${encodeURIComponent(agent.agentId)}`,
    );
    expect(verdict.chain.break).toBeUndefined();
    expect(verdict.ok).toBe(true);
    expect(verdict.chain.entries).toBeGreaterThanOrEqual(2 * CALLS_PER_PROCESS);
    const all = await pair.a.ops<{ ok: boolean; failures: unknown[] }>('/audit/verify');
    expect(all.failures).toEqual([]);
  }, 120_000);
});
