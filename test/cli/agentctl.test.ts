import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, serviceUrl } from '../../src/cli/agentctl.js';
import { OPS_TOKEN, createTestApp } from '../support/http-harness.js';
import { Operator } from '../support/mcp-fixtures.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

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
    expect(await runCli(['types'], { AGENTCTL_URL: 'http://127.0.0.1:1', OPS_TOKEN }, { out: () => {}, err: () => {} })).toBe(1);
  });
});

describe('agentctl on the real service', () => {
  let svc: TestService;
  let port: string;
  let alice: Operator;
  let agentId: string;
  let keyId: string;
  let secret: string;
  beforeAll(async () => {
    svc = await startTestService();
    port = new URL(svc.url).port;
    alice = await Operator.signIn(svc);
    agentId = (await alice.agent('ctl')).agentId;
    ({ keyId, secret } = await alice.agentKey(agentId, 'read'));
    await alice.client.post(`/api/nest/agents/${agentId}/pause`);
  });
  afterAll(() => svc.stop());

  /** agentctl with nothing but the service's own variables: no --url, no AGENTCTL_URL. */
  async function ctl(env: Record<string, string>, ...argv: string[]) {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { OPS_TOKEN: svc.opsToken, ...env }, { out: (t) => out.push(t), err: (t) => err.push(t) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  it('finds the service from PORT, HOST and PUBLIC_URL as the service reads them', async () => {
    expect(await ctl({ PORT: port }, 'types')).toMatchObject({ code: 0, out: expect.stringContaining('agent') });
    expect(await ctl({ PORT: port, HOST: '0.0.0.0' }, 'types')).toMatchObject({ code: 0 });
    expect(await ctl({ PUBLIC_URL: svc.url, PORT: '1' }, 'types')).toMatchObject({ code: 0 });
    expect(serviceUrl({})).toBe('http://127.0.0.1:3000');
    expect(serviceUrl({ HOST: '::', PORT: '8080' })).toBe('http://127.0.0.1:8080');
    expect(serviceUrl({ HOST: '::1', PORT: '8080' })).toBe('http://[::1]:8080');
    expect(serviceUrl({ AGENTCTL_URL: 'http://ops:1', PUBLIC_URL: 'http://pub:2' })).toBe('http://ops:1');
  });

  it('get labels the machine state and the actor run status', async () => {
    const { code, out } = await ctl({ PORT: port }, 'get', 'agent', agentId);
    expect(code).toBe(0);
    expect(out).toContain('machine state:  "paused"');
    expect(out).toMatch(/actor status: {3}active {2}\(XState run status/);
    expect(out).not.toContain('"state":"paused","status":"active"');
  });

  it('censors secret material in views, lists and journals, on the ops routes and in agentctl', async () => {
    const keyDoc = await svc.service.runtime.get({ type: 'api-key', id: keyId });
    const hash = (keyDoc!.context as { secretHash: string }).secretHash;
    // A session that rotated its refresh token once: its journal holds both jtis.
    const client = new Client(svc.url);
    const login = await signInSolana(client);
    expect((await client.post('/api/nest/auth/refresh', { refreshToken: login.refreshToken })).status).toBe(200);
    const sessions = await fetch(`${svc.url}/api/nest/ops/actors/session`, { headers: { authorization: `Bearer ${svc.opsToken}` } });
    const sessionViews = ((await sessions.json()) as { items: Array<{ id: string; context: Record<string, unknown> }> }).items;
    expect(sessionViews.map((view) => view.context.refreshJti)).toEqual(['[Redacted]', '[Redacted]']);
    const jtis: string[] = [];
    const outputs = [
      await ctl({ PORT: port }, 'get', 'api-key', keyId),
      await ctl({ PORT: port }, 'get', 'api-key', keyId, '--json'),
      await ctl({ PORT: port }, 'list', 'api-key', '--json'),
      await ctl({ PORT: port }, 'journal', 'api-key', keyId),
    ];
    for (const { id } of sessionViews) {
      const raw = await svc.service.runtime.get({ type: 'session', id });
      jtis.push((raw!.context as { refreshJti: string }).refreshJti);
      outputs.push(await ctl({ PORT: port }, 'get', 'session', id, '--json'), await ctl({ PORT: port }, 'journal', 'session', id));
    }
    for (const { code, out } of outputs) {
      expect(code).toBe(0);
      expect(out).not.toContain(hash);
      for (const jti of jtis) expect(out).not.toContain(jti);
      expect(out).not.toContain(secret);
    }
    // The rotated session's journal (the list's order of the two sessions is by id, so either).
    expect(outputs.some(({ out }) => out.includes('"presentedJti":"[Redacted]","nextJti":"[Redacted]"'))).toBe(true);
    expect(JSON.parse(outputs[1]!.out).context).toMatchObject({ keyId, secretHash: '[Redacted]', prefix: secret.slice(0, 13) });
  });
});
