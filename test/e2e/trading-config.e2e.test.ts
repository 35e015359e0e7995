import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TRADING_CONFIG_BINDINGS } from '../../src/http/routes/trading-config.bindings.js';
import { bearer, rawRpc } from '../support/mcp-fixtures.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const USDC_BASE = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
const FORBIDDEN = { statusCode: 403, message: 'Forbidden', error: 'Forbidden' };
const USER_NOT_FOUND = { statusCode: 404, message: 'User not found', error: 'Not Found' };

/** Every config route with a valid request; the first test checks it covers every binding. */
const ROUTES: Array<{ method: 'GET' | 'PUT' | 'POST' | 'DELETE'; suffix: string; body?: object }> = [
  { method: 'GET', suffix: '' },
  { method: 'GET', suffix: '/default-order-profile' },
  { method: 'PUT', suffix: '/default-order-profile', body: { slippageBps: 120 } },
  { method: 'PUT', suffix: '/trade-defaults', body: { slippageBps: 120 } },
  { method: 'PUT', suffix: '/risk-policy', body: { maxOrderUsd: 100 } },
  { method: 'PUT', suffix: '/notifications', body: { dca: false } },
  { method: 'PUT', suffix: '/wallet-mode', body: { walletMode: 'external' } },
  { method: 'GET', suffix: '/favorites' },
  { method: 'POST', suffix: '/favorites', body: { address: BONK } },
  { method: 'DELETE', suffix: `/favorites/${BONK}` },
  { method: 'GET', suffix: '/blacklist' },
  { method: 'POST', suffix: '/blacklist', body: { address: BONK } },
  { method: 'DELETE', suffix: `/blacklist/${BONK}` },
  { method: 'PUT', suffix: '/pool-preferences', body: { minLiquidityUsd: 5 } },
  { method: 'PUT', suffix: '/launchpads/pumpfun/toggle', body: {} },
  { method: 'PUT', suffix: '/launchpads/pumpfun/priority', body: { priority: 2 } },
];

describe('trading configuration routes and tools (e2e)', () => {
  let svc: TestService;
  let alice: Client;
  let bob: Client;
  let aliceId: string;
  let bobId: string;
  let agent: { agentId: string; publicId: string };
  const config = (suffix = '', userId = aliceId) => `/api/nest/trading/config/${userId}${suffix}`;

  beforeAll(async () => {
    svc = await startTestService();
    alice = new Client(svc.url);
    bob = new Client(svc.url);
    aliceId = (await signInSolana(alice)).user.id;
    bobId = (await signInSolana(bob)).user.id;
    agent = (await alice.post('/api/nest/agents', { name: 'Alpha' })).body;
    await bob.post('/api/nest/agents', { name: 'Bobs' });
  });
  afterAll(() => svc.stop());

  it('binds every trading config route', () => {
    const bound = TRADING_CONFIG_BINDINGS.map((binding) => `${binding.method.toUpperCase()} ${binding.path}`);
    const listed = ROUTES.map(
      (route) => `${route.method} /api/nest/trading/config/:userId${route.suffix.replace(BONK, ':address').replace('pumpfun', ':type')}`,
    );
    expect([...bound].sort()).toEqual([...listed].sort());
  });

  it('answers the defaults, then each section update, read back through GET', async () => {
    const initial = await alice.get(config());
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({
      defaultOrderProfile: { autoApprove: true, approvalAboveUsd: 10_000, slippageBps: 100 },
      walletMode: 'custodial',
      favorites: [],
    });

    expect(await alice.put(config('/default-order-profile'), { autoApprove: false, approvalAboveUsd: null })).toMatchObject({
      status: 200,
      body: { autoApprove: false, slippageBps: 100 },
    });
    expect((await alice.get(config('/default-order-profile'))).body).toEqual({
      autoApprove: false,
      slippageBps: 100,
      agentsMayApprove: false,
    });
    expect((await alice.put(config('/trade-defaults'), { chain: 'base', quoteToken: 'usdc' })).body).toEqual({
      chain: 'base',
      slippageBps: 100,
      quoteToken: 'USDC',
    });
    expect((await alice.put(config('/risk-policy'), { maxOrderUsd: 500, allowedChannels: ['mcp'] })).body).toEqual({
      maxSlippageBps: 500,
      maxOrderUsd: 500,
      allowedChannels: ['mcp'],
    });
    expect((await alice.put(config('/notifications'), { dca: false })).body).toMatchObject({
      dca: false,
      orderFilled: true,
      channels: ['sse'],
    });
    expect((await alice.put(config('/wallet-mode'), { walletMode: 'delegate' })).body).toEqual({ walletMode: 'delegate' });
    expect((await alice.put(config('/pool-preferences'), { excludedDexes: ['Meteora'] })).body).toEqual({
      preferredDexes: [],
      excludedDexes: ['meteora'],
      minLiquidityUsd: 1000,
    });
    expect((await alice.put(config('/launchpads/moonshot/toggle'))).body).toEqual({ type: 'moonshot', enabled: false, priority: 4 });
    expect((await alice.put(config('/launchpads/moonshot/toggle'), { enabled: false })).body).toEqual({
      type: 'moonshot',
      enabled: false,
      priority: 4,
    });
    expect((await alice.put(config('/launchpads/letsbonk/priority'), { priority: 9 })).body).toEqual({
      type: 'letsbonk',
      enabled: true,
      priority: 9,
    });
    expect(await alice.put(config('/launchpads/bonkfun/priority'), { priority: 9 })).toMatchObject({
      status: 404,
      body: { statusCode: 404, message: 'Launchpad not found: bonkfun' },
    });

    const read = (await alice.get(config())).body;
    expect(read).toMatchObject({
      walletMode: 'delegate',
      tradeDefaults: { chain: 'base' },
      riskPolicy: { maxOrderUsd: 500 },
      poolPreferences: { excludedDexes: ['meteora'] },
    });
    expect(read.launchpads).toContainEqual({ type: 'letsbonk', enabled: true, priority: 9 });
  });

  it('lists, adds idempotently and removes favorites and blacklisted tokens', async () => {
    const added = await alice.post(config('/favorites'), { address: JUP, symbol: 'JUP' });
    expect(added).toMatchObject({ status: 200, body: { chain: 'solana', address: JUP, symbol: 'JUP', addedAt: expect.any(String) } });
    expect((await alice.post(config('/favorites'), { address: JUP })).body).toEqual(added.body);
    expect((await alice.post(config('/favorites'), { chain: 'base', address: USDC_BASE.toLowerCase() })).body.address).toBe(USDC_BASE);
    expect((await alice.get(config('/favorites'))).body.items.map((entry: { address: string }) => entry.address)).toEqual([JUP, USDC_BASE]);
    expect((await alice.get(`${config('/favorites')}?chain=base`)).body.items).toHaveLength(1);

    expect(await alice.delete(config(`/favorites/${USDC_BASE}`))).toMatchObject({
      status: 400,
      body: { message: ['chain is required for an EVM address'] },
    });
    expect(await alice.delete(`${config(`/favorites/${USDC_BASE}`)}?chain=base`)).toMatchObject({
      status: 200,
      body: { chain: 'base', address: USDC_BASE },
    });
    expect(await alice.delete(`${config(`/favorites/${USDC_BASE}`)}?chain=base`)).toMatchObject({
      status: 404,
      body: { statusCode: 404, message: 'Token not in favorites' },
    });

    // Blacklisting a favorite takes it out of favorites; a blacklisted token cannot come back as one.
    expect((await alice.post(config('/blacklist'), { address: JUP })).status).toBe(200);
    expect((await alice.get(config('/favorites'))).body.items).toEqual([]);
    expect(await alice.post(config('/favorites'), { address: JUP })).toMatchObject({
      status: 422,
      body: {
        statusCode: 422,
        error: 'Unprocessable Entity',
        code: 'VALIDATION_ERROR',
        message: `favorites: ${JUP} on solana is blacklisted`,
      },
    });
    expect((await alice.get(config('/blacklist'))).body.items).toEqual([expect.objectContaining({ address: JUP })]);
    expect((await alice.delete(config(`/blacklist/${JUP}`))).status).toBe(200);
    expect(await alice.delete(config(`/blacklist/${JUP}`))).toMatchObject({ status: 404, body: { message: 'Token not in blacklist' } });
  });

  it('pages a token list with limit and cursor, in the order entries were added', async () => {
    const added = [BONK, JUP];
    for (const address of added) expect((await bob.post(config('/favorites', bobId), { address })).status).toBe(200);
    expect((await bob.post(config('/favorites', bobId), { chain: 'base', address: USDC_BASE })).status).toBe(200);
    const first = await bob.get(`${config('/favorites', bobId)}?limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.items.map((entry: { address: string }) => entry.address)).toEqual(added);
    const second = await bob.get(`${config('/favorites', bobId)}?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body).toEqual({ items: [expect.objectContaining({ chain: 'base', address: USDC_BASE })] });
    expect(await bob.get(`${config('/favorites', bobId)}?limit=0`)).toMatchObject({
      status: 400,
      body: { message: ['limit: Too small: expected number to be >=1'] },
    });
    expect(await bob.get(`${config('/blacklist', bobId)}?cursor=nope`)).toMatchObject({
      status: 400,
      body: { message: ['cursor is invalid'] },
    });
    for (const address of added) expect((await bob.delete(config(`/favorites/${address}`, bobId))).status).toBe(200);
    expect((await bob.delete(`${config(`/favorites/${USDC_BASE}`, bobId)}?chain=base`)).status).toBe(200);
  });

  it('refuses an inconsistent change with 422 naming both fields', async () => {
    const refused = await alice.put(config('/default-order-profile'), { slippageBps: 900 });
    expect(refused).toMatchObject({
      status: 422,
      body: { code: 'VALIDATION_ERROR', message: 'defaultOrderProfile.slippageBps 900 exceeds riskPolicy.maxSlippageBps 500' },
    });
  });

  it('acts on the agent named by agentId (query or body), else the default agent', async () => {
    const beta = (await alice.post('/api/nest/agents', { name: 'Beta' })).body;
    expect((await alice.put(config('/wallet-mode'), { walletMode: 'external', agentId: beta.agentId })).status).toBe(200);
    expect((await alice.get(`${config()}?agentId=${beta.agentId}`)).body.walletMode).toBe('external');
    expect((await alice.get(config())).body.walletMode).not.toBe('external');
  });

  it('answers 400 with every problem listed', async () => {
    const risk = await alice.put(config('/risk-policy'), { maxSlippageBps: 0, maxOrderUsd: -1, allowedChannels: ['fax'], bogus: true });
    expect(risk).toMatchObject({ status: 400, body: { statusCode: 400, error: 'Bad Request' } });
    expect(risk.body.message).toHaveLength(4);
    expect(risk.body.message).toEqual(
      expect.arrayContaining([
        'bogus is not a known field',
        expect.stringMatching(/^maxSlippageBps: /),
        expect.stringMatching(/^maxOrderUsd: /),
        expect.stringMatching(/^allowedChannels\.0: /),
      ]),
    );
    const favorite = await alice.post(config('/favorites'), { chain: 'moon', address: 'not-an-address', symbol: '' });
    expect(favorite.status).toBe(400);
    expect(favorite.body.message).toHaveLength(3);
    expect(favorite.body.message).toContain('address: must be a Solana mint (base58) or an EVM address (0x and 40 hex digits)');
    expect((await alice.put(config('/notifications'), {})).body.message).toEqual(['at least one field is required']);
    expect((await alice.put(config('/launchpads/pumpfun/priority'), { priority: 101 })).body.message).toEqual([
      expect.stringMatching(/^priority: /),
    ]);
    expect((await alice.put(config('/wallet-mode'), { walletMode: 'hot' })).body.message).toEqual([expect.stringMatching(/^walletMode: /)]);
  });

  it("answers 404 User not found on another user's :userId, for every route, and changes nothing", async () => {
    for (const route of ROUTES) {
      const response = await alice.request(route.method, config(route.suffix, bobId), route.body);
      expect({ route: `${route.method} ${route.suffix}`, status: response.status, body: response.body }).toEqual({
        route: `${route.method} ${route.suffix}`,
        status: 404,
        body: USER_NOT_FOUND,
      });
    }
    const bobs = (await bob.get(config('', bobId))).body;
    expect(bobs).toMatchObject({ walletMode: 'custodial', favorites: [], blacklist: [], riskPolicy: { maxSlippageBps: 500 } });
  });

  it('answers 403 to a mutation without CSRF, and changes nothing', async () => {
    const noCsrf = new Client(svc.url);
    noCsrf.bearer = alice.bearer;
    const before = (await alice.get(config())).body;
    for (const route of ROUTES.filter((r) => r.method !== 'GET')) {
      const response = await noCsrf.request(route.method, config(route.suffix), route.body);
      expect({ route: `${route.method} ${route.suffix}`, status: response.status, body: response.body }).toEqual({
        route: `${route.method} ${route.suffix}`,
        status: 403,
        body: FORBIDDEN,
      });
    }
    expect((await alice.get(config())).body).toEqual(before);
  });

  describe('over MCP', () => {
    const keyOf = async (scope: 'read' | 'trade') =>
      (await alice.post(`/api/nest/agents/${agent.agentId}/keys`, { name: `${scope}-config`, scope })).body.secret as string;
    const call = (secret: string, name: string, args: object = {}) =>
      rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }, bearer(secret));

    it('shows read keys the reads only, and refuses a trade tool with the scope message', async () => {
      const read = await keyOf('read');
      const listed = await rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(read));
      const names = listed.body.result.tools.map((tool: { name: string }) => tool.name);
      expect(names).toEqual(
        expect.arrayContaining([
          'trading_config_get',
          'trading_config_order_profile_get',
          'trading_config_favorites_list',
          'trading_config_blacklist_list',
        ]),
      );
      expect(names.filter((name: string) => name.startsWith('trading_config_') && !/_(get|list)$/.test(name))).toEqual([]);

      const refused = await call(read, 'trading_config_favorites_add', { address: BONK });
      expect(refused).toMatchObject({
        status: 403,
        body: { error: { code: -32003, message: 'Scope insufficient: required trade, got read' } },
      });
      const whole = await call(read, 'trading_config_get');
      expect(whole.body.result).toMatchObject({ isError: false, structuredContent: { walletMode: expect.any(String) } });
    });

    it('lets a trade key edit favorites of its agent, not the risk policy', async () => {
      const trade = await keyOf('trade');
      const added = await call(trade, 'trading_config_favorites_add', { address: BONK, symbol: 'BONK' });
      expect(added.body.result).toMatchObject({ isError: false, structuredContent: { chain: 'solana', address: BONK } });
      expect((await alice.get(config('/favorites'))).body.items).toContainEqual(expect.objectContaining({ address: BONK }));

      const risk = await call(trade, 'trading_config_risk_policy_set', { maxOrderUsd: 1 });
      expect(risk).toMatchObject({
        status: 403,
        body: { error: { code: -32003, message: 'Scope insufficient: required manage, got trade' } },
      });
      // Adding to the blacklist narrows trading; taking a token off loosens it: manage only.
      expect((await call(trade, 'trading_config_blacklist_add', { address: JUP })).body.result).toMatchObject({ isError: false });
      const unlisted = await call(trade, 'trading_config_blacklist_remove', { address: JUP });
      expect(unlisted).toMatchObject({
        status: 403,
        body: { error: { code: -32003, message: 'Scope insufficient: required manage, got trade' } },
      });
      expect((await alice.get(config('/blacklist'))).body.items).toContainEqual(expect.objectContaining({ address: JUP }));
      const invalid = await call(trade, 'trading_config_launchpad_priority_set', { type: 'pumpfun' });
      expect(invalid.body.error).toEqual({ code: -32602, message: 'INVALID_PARAMS: priority is required' });
      const unknown = await call(trade, 'trading_config_launchpad_toggle', { type: 'bonkfun' });
      expect(unknown.body.result).toEqual({
        content: [{ type: 'text', text: 'Launchpad not found: bonkfun' }],
        structuredContent: { code: 'RESOURCE_NOT_FOUND', message: 'Launchpad not found: bonkfun', retryable: false },
        isError: true,
      });
    });
  });

  describe('kill switch (ops token)', () => {
    const KILL_SWITCH = '/api/nest/ops/trading/kill-switch';
    const asOps = (token: string | undefined) => {
      const client = new Client(svc.url);
      client.bearer = token;
      return client;
    };

    it('answers 401 without the ops token, or with a session or agent key instead, and changes nothing', async () => {
      const key = (await alice.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'ks', scope: 'trade' })).body.secret as string;
      for (const token of [undefined, 'wrong', alice.bearer, key]) {
        expect(await asOps(token).get(KILL_SWITCH)).toMatchObject({ status: 401, body: { statusCode: 401, message: 'Unauthorized' } });
        expect((await asOps(token).put(KILL_SWITCH, { chain: 'solana', active: true })).status).toBe(401);
      }
      expect((await asOps(svc.opsToken).get(KILL_SWITCH)).body.active).toEqual([]);
    });

    it('stops trading on the chain at once, and lets it resume', async () => {
      const ops = asOps(svc.opsToken);
      const trade = (await alice.post(`/api/nest/agents/${agent.agentId}/keys`, { name: 'swapper', scope: 'trade' })).body.secret as string;
      expect((await alice.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
      const swap = () =>
        rawRpc(
          svc.url,
          agent.publicId,
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: {
              name: 'trading_solana_aggregator_swap',
              arguments: { inputMint: 'SOL', outputMint: BONK, amount: '1000', idempotencyKey: randomUUID() },
            },
          },
          bearer(trade),
        );
      const STOPPED = 'Trading kill switch is active for chain: solana';

      const on = await ops.put(KILL_SWITCH, { chain: 'solana', active: true });
      expect(on).toMatchObject({ status: 200, body: { active: ['solana'] } });
      expect(on.body.chains[0]).toEqual({ chain: 'solana', active: true, source: 'operator', since: expect.any(String) });
      expect((await swap()).body.result).toEqual({
        content: [{ type: 'text', text: STOPPED }],
        structuredContent: { code: 'KILL_SWITCH_ACTIVE', message: STOPPED, retryable: false },
        isError: true,
      });

      expect((await ops.put(KILL_SWITCH, { chain: 'solana', active: false })).body.active).toEqual([]);
      // Past the kill switch, a later check of the safety path answers (this agent has no wallet yet).
      const resumed = await swap();
      expect(resumed.body.error).toBeUndefined();
      expect(resumed.body.result.content[0].text).not.toContain('kill switch');
    });
  });
});
