import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_REDIS_URL, deleteRedisKeys } from '../../support/redis.js';
import { ServiceProcess } from '../../support/service-process.js';
import { PUBLIC_URL } from '../../support/test-service.js';
import { agentFixture, openSse, openWs, until } from '../../support/events-harness.js';

/** Two service processes on one store and one Redis: the stream is served by B, changes are made through A. */
describe('MCP event streams across processes (Redis event bus)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'events-redis-'));
  const prefix = `test-${randomUUID()}`;
  let a: ServiceProcess;
  let b: ServiceProcess;
  beforeAll(async () => {
    const env = { DATA_DIR: dataDir, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix, PUBLIC_URL };
    [a, b] = await Promise.all([ServiceProcess.start(env), ServiceProcess.start(env)]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(prefix);
  }, 60_000);

  it('delivers in order, replays from Last-Event-ID on the other process, and ends on a revocation made elsewhere', async () => {
    const agent = await agentFixture(a.url);
    const key = await agent.newKey();
    const sse = await openSse(b.url, agent.publicId, { secret: key.secret });
    const ws = await openWs(b.url, agent.publicId, { secret: key.secret });
    if (!ws.ok) throw new Error(`handshake refused: ${ws.status}`);
    await agent.toggle(2);
    await until(() => sse.events().length === 4 && ws.client.messages.length === 4, 'four events on B');
    const ids = sse.events().map((e) => e.id);
    expect(ids).toEqual([0, 1, 2, 3].map((n) => ids[0]! + n));
    expect(ws.client.messages.map((m) => m.id)).toEqual(ids);

    // Reconnect on A after the second event: exactly the two later ones, then live.
    const replay = await openSse(a.url, agent.publicId, { secret: key.secret, headers: { 'last-event-id': String(ids[1]) } });
    await until(() => replay.events().length === 2, 'replay on A');
    expect(replay.events().map((e) => e.id)).toEqual([ids[2], ids[3]]);

    await agent.operator.delete(`/api/nest/agents/${agent.agentId}/keys/${key.keyId}`);
    await until(() => sse.ended && replay.ended && ws.client.closed !== undefined, 'every stream to end');
    expect(ws.client.closed?.code).toBe(4401);
    expect(sse.comments()).toContain('stream closed: revoked');
  }, 60_000);
});
