import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { JournalEntry } from '../../kernel/ports/store.port.js';
import type { ActorView } from '../../src/runtime/actor-inspector.js';
import { TEST_REDIS_URL, deleteRedisKeys } from '../support/redis.js';
import { ServiceProcess } from '../support/service-process.js';
import { Client, PUBLIC_URL, signInSolana } from '../support/test-service.js';

const PER_PROCESS = 200;

describe('two service processes on one store and one Redis', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'two-proc-'));
  const prefix = `test-${randomUUID()}`;
  afterAll(async () => {
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(prefix);
  });

  it('loses no update when both send to the same actor at once', async () => {
    const env = { DATA_DIR: dataDir, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, PUBLIC_URL };
    const [a, b] = await Promise.all([ServiceProcess.start(env), ServiceProcess.start(env)]);
    try {
      expect(await a.request({ op: 'create', id: 'shared' })).toMatchObject({ ok: true, version: 1 });
      const sends = Array.from({ length: PER_PROCESS }, (_, i) => [
        a.request({ op: 'send', id: 'shared', tag: `a${i}` }),
        b.request({ op: 'send', id: 'shared', tag: `b${i}` }),
      ]).flat();
      const acks = await Promise.all(sends);
      expect(acks.filter((ack) => !ack.ok)).toEqual([]);

      const view = await b.ops<ActorView & { context: { n: number; seen: string[] } }>('/actors/counter/shared');
      expect(view.version).toBe(1 + 2 * PER_PROCESS);
      expect(view.context.n).toBe(2 * PER_PROCESS);
      expect(new Set(view.context.seen).size).toBe(2 * PER_PROCESS);
      // Each process saw its own events in the order it sent them.
      expect(view.context.seen.filter((t) => t.startsWith('a'))).toEqual(Array.from({ length: PER_PROCESS }, (_, i) => `a${i}`));

      const journal = await a.ops<{ items: JournalEntry[] }>('/actors/counter/shared/journal?limit=200');
      expect(journal.items.map((e) => e.seq)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);

  it('shares one rate budget and sees one revocation across both processes', async () => {
    const env = { DATA_DIR: dataDir, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, PUBLIC_URL };
    const [a, b] = await Promise.all([ServiceProcess.start(env), ServiceProcess.start(env)]);
    try {
      const operator = new Client(a.url);
      await signInSolana(operator);
      const { body: agent } = await operator.post('/api/nest/agents', { name: 'shared' });
      const { body: key } = await operator.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'reader', scope: 'read' });
      const viaA = new Client(a.url);
      const viaB = new Client(b.url);
      viaA.bearer = viaB.bearer = key.secret;
      // The window is the wall-clock minute: start with enough of it left for the loop.
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 15_000) await new Promise((resolve) => setTimeout(resolve, left + 100));
      const statuses: number[] = [];
      for (let i = 0; i < 130; i++) statuses.push((await (i % 2 ? viaB : viaA).post('/api/nest/auth/verify')).status);
      // One budget of 120 a minute, whichever process answers.
      expect(statuses.slice(0, 120).every((s) => s === 200)).toBe(true);
      expect(statuses.slice(120)).toEqual(Array(10).fill(429));

      // Revoked through A, refused by B within a second.
      await operator.delete(`/api/nest/agents/${agent.agentId}/keys/${key.keyId}`);
      const deadline = Date.now() + 1000;
      let status = 0;
      do {
        status = (await viaB.post('/api/nest/auth/verify')).status;
      } while (status !== 401 && Date.now() < deadline);
      expect(status).toBe(401);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);
});
