/**
 * The live profile wired end to end with its providers down: the venue per chain, the
 * circuit breaker per provider (the trading errors: 503 `Circuit breaker open for provider:
 * <provider>`), the command route's soft error for an unreachable engine, and no faucet.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe('live venue profile with its providers failing (e2e)', () => {
  let svc: TestService;
  let down: Server;
  let operator: Operator;
  const key = () => ({ 'x-idempotency-key': randomUUID() });

  beforeAll(async () => {
    // A provider that answers every call with a 502, like a vendor outage.
    down = createServer((_req, res) => res.writeHead(502, { 'content-type': 'application/json' }).end('{"error":"bad gateway"}'));
    await new Promise<void>((resolve) => down.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
    svc = await startTestService({
      env: {
        TRADING_VENUE: 'live',
        JUPITER_API_URL: `${url}/swap/v1`,
        SOLANA_RPC_URL: url,
        CIRCUIT_BREAKER_THRESHOLD: '2',
        PROVIDER_TIMEOUT_MS: '2000',
      },
    });
    operator = await Operator.signIn(svc);
    const agent = await operator.agent('live');
    await operator.client.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true });
    expect((await operator.client.post(`/api/nest/trading/wallets/custodial/${operator.userId}`, {}, key())).status).toBe(201);
  });
  afterAll(async () => {
    await svc.stop();
    await new Promise((resolve) => down.close(resolve));
  });

  it('has no paper faucet, and reports EVM chains without a venue as unreachable', async () => {
    expect(
      (await operator.client.post(`/api/nest/trading/paper/faucet/${operator.userId}`, { chain: 'solana', token: 'SOL', amount: '1' }))
        .status,
    ).toBe(404);
    const status = await operator.client.get('/api/nest/trading/evm/status');
    expect(status.body.venue).toBe('jupiter');
    expect(status.body.chains[0]).toMatchObject({
      chain: 'ethereum',
      reachable: false,
      error: 'no venue is configured for ethereum',
      killSwitch: false,
    });
  });

  it('turns an unreachable engine into the soft error on the command route, then opens the breaker', async () => {
    const soft = await operator.client.post('/api/nest/trading/command', { message: 'buy 0.1 SOL of BONK' }, key());
    expect(soft.status).toBe(200);
    expect(soft.body).toMatchObject({
      success: false,
      error: { code: 'TRADING_UNAVAILABLE', message: 'Trading servisi su anda kullanilamiyor.', details: { retryable: true } },
    });
    await operator.client.post('/api/nest/trading/command', { message: 'buy 0.1 SOL of BONK' }, key());
    const open = await operator.client.post('/api/nest/trading/command', { message: 'buy 0.1 SOL of BONK' }, key());
    expect(open).toMatchObject({
      status: 503,
      body: { message: 'Circuit breaker open for provider: jupiter', code: 'CIRCUIT_BREAKER_OPEN' },
    });
    expect(Number(open.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('offers no EVM trading where no EVM venue serves: neither the tools nor their routes', async () => {
    const evm = await operator.client.post(`/api/nest/trading/evm/quote/${operator.userId}`, {
      chainId: 8453,
      sellToken: 'USDC',
      buyToken: 'WETH',
      sellAmount: '1000000',
    });
    expect(evm.status).toBe(404);
    const { agentId, publicId } = await operator.agent('surface');
    const { secret } = await operator.agentKey(agentId, 'trade');
    const listed = await rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, bearer(secret));
    const names = (listed.body.result.tools as Array<{ name: string }>).map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(['trading_solana_aggregator_swap', 'trading_solana_aggregator_tokens_search', 'trading_evm_status']),
    );
    expect(names).not.toContain('trading_evm_quote');
    expect(names).not.toContain('trading_evm_swap');
    type Parameter = { name: string; in: string; required?: boolean };
    type Operation = { parameters?: Parameter[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }> };
    const doc = (await (await fetch(`${svc.url}/api/nest/openapi.json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    // A trade may answer the soft error (200, canonical envelope), 503 (kill switch, breaker) and,
    // keyed, 409 or 422 (idempotency).
    const command = doc.paths['/api/nest/trading/command']!.post!;
    expect(Object.keys(command.responses)).toEqual(expect.arrayContaining(['200', '409', '422', '503']));
    expect(JSON.stringify(command.responses['200']!.content)).toContain('"success":{"type":"boolean","const":false}');
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/api/nest/trading/evm/quote'))).toEqual([]);
    // Routes that act on the default agent document the `agentId` that names another one.
    for (const [path, method] of [
      ['/api/nest/trading/command', 'post'],
      ['/api/nest/trading/positions/{userId}', 'get'],
    ] as const) {
      expect(doc.paths[path]![method]!.parameters).toContainEqual(
        expect.objectContaining({ name: 'agentId', in: 'query', required: false }),
      );
    }
  });
});
