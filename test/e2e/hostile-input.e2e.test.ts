import { randomUUID } from 'node:crypto';
/**
 * Bad input from outside gets a clear 4xx in the interface's envelope, listing every
 * problem, and never does more than was asked (an outside audit's findings, each a client's
 * request as sent over HTTP or MCP).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KILL_SWITCH_PATH } from '../../src/http/routes/kill-switch.bindings.js';
import { Client, solanaWallet, startTestService, type TestService } from '../support/test-service.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL = 'So11111111111111111111111111111111111111112';

describe('hostile input (e2e)', () => {
  let svc: TestService;
  let alice: Operator;
  let agent: { agentId: string; publicId: string };
  let tradeKey: string;

  beforeAll(async () => {
    svc = await startTestService();
    alice = await Operator.signIn(svc);
    agent = await alice.agent('hostile');
    await alice.client.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true });
    tradeKey = (await alice.agentKey(agent.agentId, 'trade')).secret;
  });
  afterAll(() => svc.stop());

  /** A request with the operator's session, a raw body and a content type of our choosing. */
  function raw(method: string, path: string, body: string, contentType: string) {
    const { bearer: session, csrf } = alice.client;
    return fetch(`${svc.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${session}`, 'x-csrf-token': csrf!, 'content-type': contentType },
      body,
    });
  }

  const strategy = (name: string, extra: Record<string, unknown> = {}) => ({
    name,
    inputToken: 'USDC',
    outputToken: 'SOL',
    amount: '1',
    interval: 'every 1 hours',
    ...extra,
  });

  it('a non-integer amount is a 400 naming the field, never a 500 (REST and MCP)', async () => {
    for (const amount of ['1.5', '1e400', 'NaN', '-1', ' 1 ']) {
      const quote = await alice.client.post(`/api/nest/trading/evm/quote/${alice.userId}`, {
        chainId: 1,
        sellToken: 'USDC',
        buyToken: 'WETH',
        sellAmount: amount,
      });
      expect(quote.status, amount).toBe(400);
      expect(quote.body.message).toEqual(['sellAmount: must be an integer amount in base units, as a decimal string']);
    }
    const zero = await alice.client.post(`/api/nest/trading/evm/quote/${alice.userId}`, {
      chainId: 1,
      sellToken: 'USDC',
      buyToken: 'WETH',
      sellAmount: '0',
    });
    expect(zero.body.message).toEqual(['sellAmount: must be greater than 0']);
    const swap = await rawRpc(
      svc.url,
      agent.publicId,
      {
        jsonrpc: '2.0',
        id: 4,
        method: 'tools/call',
        params: {
          name: 'trading_solana_aggregator_swap',
          arguments: { inputMint: USDC, outputMint: SOL, amount: '1.5', idempotencyKey: randomUUID() },
        },
      },
      bearer(tradeKey),
    );
    expect(swap.body.error).toEqual({
      code: -32602,
      message: 'INVALID_PARAMS: amount: must be an integer amount in base units, as a decimal string',
    });
  });

  it('an amount sent as a JSON integer is taken when JSON carries it exactly, else refused with the advice to send a string', async () => {
    await alice.client.post(`/api/nest/trading/wallets/custodial/${alice.userId}`, {}, { 'x-idempotency-key': randomUUID() });
    await alice.client.post(`/api/nest/trading/paper/faucet/${alice.userId}`, { chain: 'solana', token: 'USDC', amount: 50 });
    const call = (id: number, amount: unknown) =>
      rawRpc(
        svc.url,
        agent.publicId,
        {
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: {
            name: 'trading_solana_aggregator_swap',
            arguments: { inputMint: USDC, outputMint: SOL, amount, idempotencyKey: randomUUID() },
          },
        },
        bearer(tradeKey),
      );
    const swap = await call(5, 12_000_000);
    expect(swap.body.result.isError).toBe(false);
    expect(swap.body.result.structuredContent).toMatchObject({ amountIn: '12000000', status: 'filled' });
    for (const amount of [2 ** 60, 1.5]) {
      expect((await call(6, amount)).body.error).toEqual({
        code: -32602,
        message: `INVALID_PARAMS: amount: must be sent as a string: JSON numbers are taken only as integers from 0 to ${Number.MAX_SAFE_INTEGER} (larger ones lose digits)`,
      });
    }
  });

  it('an id longer than any stored one is simply not found', async () => {
    const long = 'x'.repeat(5_000);
    const answer = await alice.client.get(`/api/nest/agents/${long}`);
    expect(answer).toMatchObject({ status: 404, body: { message: 'Agent not found' } });
    const config = await alice.client.get(`/api/nest/trading/config/${alice.userId}?agentId=${long}`);
    expect(config).toMatchObject({ status: 404, body: { message: 'Agent not found' } });
  });

  it('a malformed agentId is listed with every other problem, never read as the default account', async () => {
    const mode = await alice.client.put(`/api/nest/trading/config/${alice.userId}/wallet-mode`, {
      agentId: 5,
      walletMode: 'bogus',
      zzz: 1,
    });
    expect(mode.status).toBe(400);
    expect(mode.body.message).toEqual(
      expect.arrayContaining(['agentId must be a string', 'zzz is not a known field', expect.stringMatching(/^walletMode: /)]),
    );
    const command = await alice.client.post('/api/nest/trading/command', { agentId: null, zzz: 1 });
    expect(command.body.message).toEqual([
      'X-Idempotency-Key header is required',
      'agentId must be a string',
      'message is required',
      'zzz is not a known field',
    ]);
    const twice = await alice.client.get(`/api/nest/trading/config/${alice.userId}?agentId=${agent.agentId}&agentId=${agent.agentId}`);
    expect(twice).toMatchObject({ status: 400, body: { message: ['agentId must be a string'] } });
    const disagreeing = await alice.client.put(`/api/nest/trading/config/${alice.userId}/notifications?agentId=${agent.agentId}`, {
      agentId: 'agt_other',
      dca: false,
    });
    expect(disagreeing).toMatchObject({ status: 400, body: { message: ['agentId in the query and in the body name different agents'] } });
    const agreeing = await alice.client.put(`/api/nest/trading/config/${alice.userId}/notifications?agentId=${agent.agentId}`, {
      agentId: agent.agentId,
      dca: false,
    });
    expect(agreeing.status).toBe(200);
  });

  it('a repeated paging parameter is refused, not dropped', async () => {
    for (const path of [
      `/api/nest/trading/orders/${alice.userId}`,
      `/api/nest/trading/strategies/${alice.userId}`,
      `/api/nest/agents/${agent.agentId}/keys`,
    ]) {
      const cursors = await alice.client.get(`${path}?cursor=a&cursor=b`);
      expect(cursors, path).toMatchObject({ status: 400, body: { message: ['cursor must be string'] } });
      const limits = await alice.client.get(`${path}?limit=1&limit=2`);
      expect(limits, path).toMatchObject({ status: 400, body: { message: ['limit must be number'] } });
    }
  });

  it('an unknown query parameter is refused on every read route, as on the others; agentId still names the account', async () => {
    const reads = [
      `/api/nest/trading/orders/${alice.userId}`,
      `/api/nest/trading/approvals/${alice.userId}`,
      `/api/nest/trading/strategies/${alice.userId}`,
      `/api/nest/trading/positions/${alice.userId}`,
      `/api/nest/trading/positions/${alice.userId}/pnl`,
      `/api/nest/trading/dca/stats/${alice.userId}`,
      '/api/nest/trading/evm/status',
      `/api/nest/agents/${agent.agentId}/keys`,
      `/api/nest/agents/${agent.agentId}/status`,
    ];
    for (const path of reads) {
      expect((await alice.client.get(`${path}?zzz=1`)).body, path).toMatchObject({
        statusCode: 400,
        message: ['zzz is not a known field'],
      });
      const account = path.includes(alice.userId) ? `?agentId=${agent.agentId}` : '';
      expect((await alice.client.get(`${path}${account}`)).status, path).toBe(200);
    }
    const statuses = await alice.client.get(`/api/nest/trading/orders/${alice.userId}?status=filled&status=failed`);
    expect(statuses.status).toBe(400);
  });

  it('an unknown query parameter is refused on the agent and legacy bot routes and on body routes, and nothing is done', async () => {
    const { body: bot } = await alice.client.post('/api/nest/bots', { name: 'queried' });
    const reads = [
      '/api/nest/agents',
      `/api/nest/agents/${agent.agentId}`,
      '/api/nest/bots',
      '/api/nest/bots/list',
      `/api/nest/bots/${bot.id}`,
      `/api/nest/bots/${bot.id}/mcp`,
      `/api/nest/bots/${bot.id}/mcp/logs`,
    ];
    for (const path of reads) {
      expect((await alice.client.get(`${path}?zzz=1`)).body, path).toMatchObject({
        statusCode: 400,
        message: ['zzz is not a known field'],
      });
      expect((await alice.client.get(path)).status, path).toBe(200);
    }
    const idem = () => ({ 'x-idempotency-key': randomUUID() });
    const writes: Array<[string, Record<string, unknown>, () => Record<string, string>]> = [
      ['/api/nest/agents', { name: 'never-created' }, () => ({})],
      [`/api/nest/agents/${agent.agentId}/keys`, { name: 'never-created', scope: 'read' }, () => ({})],
      ['/api/nest/trading/command', { message: 'status' }, idem],
      [`/api/nest/bots/${bot.id}/mcp/token`, {}, () => ({})],
    ];
    for (const [path, body, headers] of writes) {
      expect((await alice.client.post(`${path}?zzz=1`, body, headers())).body, path).toMatchObject({
        statusCode: 400,
        message: ['zzz is not a known field'],
      });
    }
    expect((await alice.client.request('DELETE', `/api/nest/bots/${bot.id}?zzz=1`)).status).toBe(400);
    expect((await alice.client.get(`/api/nest/bots/${bot.id}`)).status).toBe(200);
    expect(JSON.stringify((await alice.client.get('/api/nest/agents?limit=200')).body)).not.toContain('never-created');
    expect((await alice.client.get(`/api/nest/agents/${agent.agentId}/keys?limit=200`)).body.items).not.toContainEqual(
      expect.objectContaining({ name: 'never-created' }),
    );
    expect((await alice.client.get(`/api/nest/bots/${bot.id}/mcp`)).body.keys).toEqual([]);
    // The account's agentId is still taken on a route without :agentId; on one with it, it is unknown.
    expect((await alice.client.post(`/api/nest/trading/command?agentId=${agent.agentId}`, { message: 'status' }, idem())).status).toBe(200);
    const keyed = await alice.client.post(`/api/nest/agents/${agent.agentId}/keys?agentId=${agent.agentId}`, {
      name: 'never-created',
      scope: 'read',
    });
    expect(keyed.body).toMatchObject({ statusCode: 400, message: ['agentId is not a known field'] });
  });

  it('an unknown query parameter is refused on the sign-in, session and ops routes too, and nothing is done', async () => {
    const refused = async (method: string, path: string, headers: Record<string, string> = {}, body?: unknown) => {
      const answer = await fetch(`${svc.url}${path}?zzz=1`, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(answer.status, `${method} ${path}`).toBe(400);
      expect(await answer.json(), `${method} ${path}`).toMatchObject({ message: ['zzz is not a known field'] });
    };
    for (const path of [
      '/api/nest/auth/nonce',
      '/api/nest/auth/evm/nonce',
      '/api/nest/auth/login',
      '/api/nest/auth/evm/login',
      '/api/nest/auth/refresh',
    ]) {
      await refused('POST', path, {}, {});
    }
    await refused('GET', '/api/nest/auth/csrf');
    const session = { authorization: `Bearer ${alice.client.bearer}`, 'x-csrf-token': alice.client.csrf! };
    for (const path of ['/api/nest/auth/logout', '/api/nest/auth/verify', '/api/nest/auth/totp/enroll', '/api/nest/auth/totp/activate']) {
      await refused('POST', path, session, {});
    }
    // The session survived the refused logout.
    expect((await alice.client.get('/api/nest/agents')).status).toBe(200);
    const ops = { authorization: `Bearer ${svc.opsToken}` };
    await refused('GET', KILL_SWITCH_PATH, ops);
    await refused('PUT', KILL_SWITCH_PATH, ops, { chain: 'solana', active: true });
    await refused('GET', '/api/nest/ops/catalog', ops);
    await refused('PUT', '/api/nest/ops/catalog', ops, { disabledFamilies: ['chat'] });
    const killSwitch = await fetch(`${svc.url}${KILL_SWITCH_PATH}`, { headers: ops });
    expect((await killSwitch.json()).active).toEqual([]);
    const catalog = await fetch(`${svc.url}/api/nest/ops/catalog`, { headers: ops });
    expect((await catalog.json()).settings.disabledFamilies).toEqual([]);
  });

  it('sign-in and session routes refuse body fields they do not take, and bodies that are not objects', async () => {
    const wallet = solanaWallet();
    const visitor = new Client(svc.url);
    await visitor.refreshCsrf(); // the logins check the pre-login CSRF token first
    const cases: Array<[Client, string, Record<string, unknown>]> = [
      [visitor, '/api/nest/auth/nonce', { walletAddress: wallet.address, foo: 1 }],
      [visitor, '/api/nest/auth/evm/nonce', { foo: 1 }],
      [visitor, '/api/nest/auth/login', { message: 'm', signature: 's', walletAddress: wallet.address, foo: 1 }],
      [visitor, '/api/nest/auth/evm/login', { message: 'm', signature: '0x12', foo: 1 }],
      [alice.client, '/api/nest/auth/verify', { foo: 1 }],
      [alice.client, '/api/nest/auth/totp/enroll', { foo: 1 }],
      [alice.client, '/api/nest/auth/logout', { foo: 1 }],
    ];
    for (const [client, path, body] of cases) {
      const answer = await client.post(path, body);
      expect(answer.status, path).toBe(400);
      expect(answer.body.message, path).toContain('foo is not a known field');
      expect((await client.post(path, [1])).body, path).toMatchObject({ statusCode: 400, message: ['body must be object'] });
    }
    // The refused logout left the session signed in.
    expect((await alice.client.get('/api/nest/agents')).status).toBe(200);
  });

  it('a route whose body fields are all optional takes no body as no fields (PUT /bots/:botId/mcp)', async () => {
    const { body: bot } = await alice.client.post('/api/nest/bots', { name: 'bodiless' });
    const before = (await alice.client.get(`/api/nest/bots/${bot.id}/mcp`)).body.config;
    const answer = await alice.client.request('PUT', `/api/nest/bots/${bot.id}/mcp`);
    expect(answer.status).toBe(200);
    expect(answer.body.config).toEqual(before);
  });

  it('a JSON body that is not an object (an array, a number, a string, null) is "body must be object" on every route, guarded ones included', async () => {
    const { bearer: session, csrf } = alice.client;
    const send = (path: string, body: string) =>
      fetch(`${svc.url}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${session}`,
          'x-csrf-token': csrf!,
          'content-type': 'application/json',
          'x-idempotency-key': randomUUID(),
        },
        body,
      });
    const routes = [
      `/api/nest/trading/wallets/custodial/${alice.userId}`,
      '/api/nest/trading/command',
      `/api/nest/trading/orders/${alice.userId}/ord_x/approve`,
      `/api/nest/trading/dca/pause/${alice.userId}`,
    ];
    for (const path of routes) {
      for (const body of ['[]', '[1]', '5', '"x"', 'null', 'true']) {
        const answer = await send(path, body);
        expect(answer.status, `${path} ${body}`).toBe(400);
        expect(await answer.json(), `${path} ${body}`).toMatchObject({ message: ['body must be object'] });
      }
    }
    expect((await send('/api/nest/trading/command', '{"message":')).status).toBe(400);
    // Sign-in routes whose fields are all optional too.
    for (const path of ['/api/nest/auth/nonce', '/api/nest/auth/refresh']) {
      for (const body of ['null', '5', '[]']) {
        const answer = await fetch(`${svc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        expect(answer.status, `${path} ${body}`).toBe(400);
        expect(await answer.json(), `${path} ${body}`).toMatchObject({ message: ['body must be object'] });
      }
    }
  });

  it("a swap of a token into itself is refused in the caller's own field names, a symbol and an address of one token included", async () => {
    const idem = () => ({ 'x-idempotency-key': randomUUID() });
    expect((await alice.client.post(`/api/nest/trading/evm/wallets/${alice.userId}/custodial`, {}, idem())).status).toBe(201);
    const usdcOnBase = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
    const body = { chainId: 8453, sellToken: 'USDC', buyToken: usdcOnBase, sellAmount: '1000000' };
    for (const [path, headers] of [
      [`/api/nest/trading/evm/quote/${alice.userId}`, {}],
      [`/api/nest/trading/evm/swap/${alice.userId}`, idem()],
    ] as const) {
      expect(await alice.client.post(path, body, headers), path).toMatchObject({
        status: 400,
        body: { message: ['sellToken and buyToken must be different tokens'] },
      });
    }
    await rawRpc(
      svc.url,
      agent.publicId,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'trading_wallet_custodial_ensure', arguments: {} } },
      bearer(tradeKey),
    );
    const solana = await rawRpc(
      svc.url,
      agent.publicId,
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: {
          name: 'trading_solana_aggregator_swap',
          arguments: { inputMint: 'USDC', outputMint: USDC, amount: '1000000', idempotencyKey: randomUUID() },
        },
      },
      bearer(tradeKey),
    );
    expect(solana.body.error).toEqual({ code: -32602, message: 'INVALID_PARAMS: inputMint and outputMint must be different tokens' });
  });

  it('checks across fields are listed with the rest of the body', async () => {
    const dca = await alice.client.post(
      `/api/nest/trading/strategies/${alice.userId}`,
      strategy('s9', { interval: 'garbage', slippageBps: 0 }),
    );
    expect(dca.status).toBe(400);
    expect(dca.body.message).toEqual(
      expect.arrayContaining([
        'interval must be a cron expression or "every <n> <minutes|hours|days>"',
        expect.stringMatching(/^slippageBps: /),
      ]),
    );
    const favorite = await alice.client.post(`/api/nest/trading/config/${alice.userId}/favorites`, {
      address: `0x${'1'.repeat(40)}`,
      chain: 'solana',
      symbol: '',
    });
    expect(favorite.status).toBe(400);
    expect(favorite.body.message).toEqual(
      expect.arrayContaining(['address must be a Solana mint (base58, 32 bytes) on solana', expect.stringMatching(/^symbol: /)]),
    );
    const unknown = await alice.client.post(`/api/nest/trading/strategies/${alice.userId}`, strategy('s8', { zzz1: 1, zzz2: 2 }));
    expect(unknown.body.message).toEqual(['zzz1 is not a known field', 'zzz2 is not a known field']);
  });

  it('times must be real ISO 8601 times: nothing else is accepted or silently moved', async () => {
    for (const startAt of ['2030-02-30T00:00:00Z', '1', '2030', 'March 7 2031', '2030-01-01T24:00:00Z']) {
      const created = await alice.client.post(`/api/nest/trading/strategies/${alice.userId}`, strategy('bad-time', { startAt }));
      expect(created, startAt).toMatchObject({ status: 400, body: { message: ['startAt: must be an ISO 8601 time'] } });
    }
    const good = await alice.client.post(
      `/api/nest/trading/strategies/${alice.userId}`,
      strategy('good-time', { startAt: '2030-02-28T09:00:00+02:00' }),
    );
    expect(good.status).toBe(201);
    expect(good.body.startAt).toBe('2030-02-28T07:00:00.000Z');
  });

  it('a body that is not a JSON object is refused, never read as "no body" (which would pause every strategy)', async () => {
    for (const name of ['p1', 'p2'])
      expect((await alice.client.post(`/api/nest/trading/strategies/${alice.userId}`, strategy(name))).status).toBe(201);
    const pause = `/api/nest/trading/dca/pause/${alice.userId}`;
    const asText = await raw('POST', pause, JSON.stringify({ name: 'p1' }), 'text/plain');
    expect(asText.status).toBe(415);
    expect(await asText.json()).toMatchObject({ statusCode: 415, message: 'Unsupported Media Type' });
    const asForm = await raw('POST', pause, 'name=p1', 'application/x-www-form-urlencoded');
    expect(asForm.status).toBe(415);
    const asArray = await raw('POST', pause, JSON.stringify([{ name: 'p1' }]), 'application/json');
    expect(asArray.status).toBe(400);
    expect(await asArray.json()).toMatchObject({ message: ['body must be object'] });
    const ensure = await raw('POST', `/api/nest/trading/wallets/custodial/${alice.userId}`, JSON.stringify({ chain: 'evm' }), 'text/plain');
    expect(ensure.status).toBe(415);
    const list = await alice.client.get(`/api/nest/trading/strategies/${alice.userId}?limit=50`);
    const statuses = Object.fromEntries((list.body.items as Array<{ name: string; status: string }>).map((s) => [s.name, s.status]));
    expect(statuses).toMatchObject({ p1: 'active', p2: 'active' });
    // An empty body is still "no body": pause every strategy, as documented.
    const all = await alice.client.request('POST', pause);
    expect(all.status).toBe(200);
    const paused = await alice.client.get(`/api/nest/trading/strategies/${alice.userId}?limit=50`);
    expect(
      (paused.body.items as Array<{ name: string; status: string }>).filter((s) => ['p1', 'p2'].includes(s.name)).map((s) => s.status),
    ).toEqual(['paused', 'paused']);
    // And the API document says a body route may answer 415.
    const doc = (await (await fetch(`${svc.url}/api/nest/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    expect(Object.keys(doc.paths['/api/nest/trading/dca/pause/{userId}']!.post!.responses)).toContain('415');
  });

  it('bytes that are not UTF-8 are a malformed body, not stored as replacement characters', async () => {
    // latin1 turns each code unit below 256 into one byte: 0xFF 0xFE 0xC0 is no UTF-8.
    const bytes = Buffer.from('{"name":"\u00ff\u00fe\u00c0"}', 'latin1');
    const created = await fetch(`${svc.url}/api/nest/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice.client.bearer}`, 'x-csrf-token': alice.client.csrf!, 'content-type': 'application/json' },
      body: new Blob([bytes]),
    });
    expect(created.status).toBe(400);
    expect(await created.json()).toMatchObject({ message: ['Malformed JSON body'] });
  });

  it('every 401 names the bearer scheme, on REST and on the event stream too (there with the agent’s OAuth resource metadata)', async () => {
    const rest = await fetch(`${svc.url}/api/nest/auth/verify`, { method: 'POST' });
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toBe('Bearer');
    const sse = await fetch(`${svc.url}/mcp/${agent.publicId}/events/sse`);
    expect(sse.status).toBe(401);
    expect(sse.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="http://agents.test/.well-known/oauth-protected-resource/mcp/${agent.publicId}"`,
    );
    await sse.body?.cancel();
  });

  it('API answers may not be stored by any cache (tokens, key secrets)', async () => {
    const refreshed = await alice.client.get('/api/nest/auth/csrf');
    expect(refreshed.headers.get('cache-control')).toBe('no-store');
    const created = await alice.client.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'cached', scope: 'read' });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    const error = await fetch(`${svc.url}/api/nest/agents`);
    expect(error.headers.get('cache-control')).toBe('no-store');
  });

  it('MCP refusals before dispatch answer with the request id', async () => {
    const answer = await rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: 'abc', method: 'ping' }, {});
    expect(answer).toMatchObject({ status: 401, body: { jsonrpc: '2.0', id: 'abc', error: { code: -32001, message: 'Unauthorized' } } });
  });

  it('a route whose operation is switched off is 404, before its idempotency key or body is looked at', async () => {
    const settings = (body: unknown) =>
      fetch(`${svc.url}/api/nest/ops/catalog`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${svc.opsToken}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const swap = () => alice.client.post(`/api/nest/trading/evm/swap/${alice.userId}`, { chainId: 'x' });
    const visible = await swap();
    expect(visible.status).toBe(400);
    expect(visible.body.message).toContain('X-Idempotency-Key header is required');
    expect((await settings({ disabledOperations: ['trading_evm_swap'] })).status).toBe(200);
    try {
      expect(await swap()).toMatchObject({ status: 404, body: { statusCode: 404, message: 'Tool not found: trading_evm_swap' } });
    } finally {
      expect((await settings({})).status).toBe(200);
    }
    expect((await swap()).status).toBe(400);
  });
});
