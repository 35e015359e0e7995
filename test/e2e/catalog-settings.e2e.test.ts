import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { deleteRedisKeys, TEST_REDIS_URL } from '../support/redis.js';
import { ServiceProcess } from '../support/service-process.js';
import { PUBLIC_URL, type TestService } from '../support/test-service.js';

const toolsList = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const askBot = {
  jsonrpc: '2.0',
  id: 2,
  method: 'tools/call',
  params: { name: 'ask_bot', arguments: { message: 'status', chat_id: 'c1' } },
};

describe('catalog settings across processes and restarts (embedded store)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'catalog-settings-'));
  // Two processes share a data directory only with Redis carrying their events (DECISIONS).
  const prefix = `test-catalog-${randomUUID()}`;
  const env = { DATA_DIR: dataDir, PUBLIC_URL, REDIS_URL: TEST_REDIS_URL, REDIS_KEY_PREFIX: prefix };
  const running: ServiceProcess[] = [];
  afterAll(async () => {
    await Promise.all(running.map((process) => process.stop()));
    rmSync(dataDir, { recursive: true, force: true });
    await deleteRedisKeys(prefix);
  });
  const start = async () => {
    const started = await ServiceProcess.start(env);
    running.push(started);
    return started;
  };
  const putSettings = (to: ServiceProcess, body: unknown) =>
    fetch(`${to.url}/api/nest/ops/catalog`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${to.opsToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('a family switched off on one process is off on the other within a second, and after a restart', async () => {
    // One after the other: the first one writes the generated secrets both then read.
    const a = await start();
    const b = await start();
    const operator = await Operator.signIn({ url: a.url } as TestService);
    const { agentId, publicId } = await operator.agent('catalog');
    const { secret } = await operator.agentKey(agentId, 'read');
    const tools = async (on: ServiceProcess) =>
      ((await rawRpc(on.url, publicId, toolsList, bearer(secret))).body.result.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(await tools(b)).toContain('ask_bot');

    const unknown = await putSettings(a, { disabledOperations: ['no_such_tool'] });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ message: ['Unknown operation: no_such_tool'] });

    expect((await putSettings(a, { disabledFamilies: ['chat'] })).status).toBe(200);
    expect(await tools(a)).not.toContain('ask_bot');
    await expect.poll(() => tools(b), { timeout: 5_000, interval: 100 }).not.toContain('ask_bot');
    expect((await rawRpc(b.url, publicId, askBot, bearer(secret))).body.error).toEqual({ code: -32601, message: 'Method not found' });

    await b.stop();
    const c = await start();
    expect(await tools(c)).not.toContain('ask_bot');
    expect((await putSettings(c, {})).status).toBe(200);
    await expect.poll(() => tools(a), { timeout: 5_000, interval: 100 }).toContain('ask_bot');
  });
});
