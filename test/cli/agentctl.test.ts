import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/agentctl.js';
import { OPS_TOKEN, createTestApp } from '../http/http-harness.js';

describe('agentctl', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createTestApp().app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  async function run(...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { AGENTCTL_URL: url, OPS_TOKEN }, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('lists types', async () => {
    expect(await run('types')).toMatchObject({ code: 0, out: 'order\nagent' });
  });

  it('lists actors of a type as a table with the next cursor', async () => {
    const { code, out } = await run('list', 'order', '--state', 'active');
    expect(code).toBe(0);
    expect(out).toContain('ID\tSTATE\tVERSION\tUPDATED');
    expect(out).toContain('o-1\t"active"\t3\t2025-01-01T00:00:00.000Z');
    expect(out).toContain('(more: --cursor cursor-2)');
  });

  it('shows one actor and its journal', async () => {
    const get = await run('get', 'order', 'o-1', '--json');
    expect(get.code).toBe(0);
    expect(JSON.parse(get.out)).toMatchObject({ id: 'o-1', version: 3 });
    const journal = await run('journal', 'order', 'o-1');
    expect(journal.out).toContain('1\t1970-01-01T00:00:00.001Z\t"pending_approval"\t{"type":"order.created"}');
  });

  it('reports errors from the service with a non-zero exit', async () => {
    expect(await run('get', 'order', 'missing')).toMatchObject({ code: 1, err: '404: Actor not found' });
    const denied = await runCli(['types'], { AGENTCTL_URL: url, OPS_TOKEN: 'wrong' }, { out: () => {}, err: () => {} });
    expect(denied).toBe(1);
  });

  it('explains usage and bad options', async () => {
    expect((await run()).code).toBe(2);
    expect(await run('list', 'order', '--limit', '999')).toMatchObject({ code: 2, err: expect.stringContaining('limit') });
    expect((await runCli(['types'], { AGENTCTL_URL: 'http://127.0.0.1:1' , OPS_TOKEN }, { out: () => {}, err: () => {} }))).toBe(1);
  });
});
