/**
 * Which errors the SDK retries, how often, after which waits, and with which idempotency key
 * (the SDK error mapping, client SDK), on a driven clock and a scripted fetch.
 */
import { describe, expect, it } from 'vitest';
import { AgentClient, retryDelayMs, type SdkError } from '../../sdk/src/index.js';
import { DrivenClock, json, refused, scriptedFetch, toolRefusal, toolResult } from './sdk-fakes.js';

const SWAP = { inputMint: 'USDC', outputMint: 'SOL', amount: '10000000' };
const order = { order_id: 'ord_1', status: 'filled' };

function agent(answers: Parameters<typeof scriptedFetch>[0], retry: Record<string, number> = {}) {
  const clock = new DrivenClock();
  const { fetch, requests } = scriptedFetch(answers);
  const retries: Array<{ attempt: number; delayMs: number; code: string }> = [];
  let keys = 0;
  const client = new AgentClient({
    baseUrl: 'http://svc.test',
    publicId: 'pub_1',
    apiKey: 'mcpk_x',
    fetch,
    clock,
    random: () => 0.5,
    uuid: () => `00000000-0000-4000-8000-${String(++keys).padStart(12, '0')}`,
    retry: { baseDelayMs: 100, maxDelayMs: 1_000, ...retry },
    onRetry: ({ attempt, delayMs, error }) => retries.push({ attempt, delayMs, code: error.code }),
  });
  return { client, clock, requests, retries };
}

describe('SDK retries', () => {
  it('retries network errors with exponential backoff and jitter, keeping the idempotency key of the call', async () => {
    const { client, clock, requests, retries } = agent([refused(), refused(), refused(), toolResult(order)]);
    await expect(client.callTool('trading_solana_aggregator_swap', SWAP)).resolves.toEqual(order);
    expect(requests).toHaveLength(4);
    // Equal jitter with random 0.5: three quarters of each step (100, 200, 400 ms).
    expect(clock.sleeps).toEqual([75, 150, 300]);
    expect(retries.map((r) => r.code)).toEqual(['network_error', 'network_error', 'network_error']);
    const keys = requests.map((request) => request.body.params.arguments.idempotencyKey);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('gives up after maxAttempts with the last network_error', async () => {
    const { client, requests } = agent([refused(), refused()], { maxAttempts: 2 });
    const error = await client.callTool('trading_portfolio_summary', {}).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network_error', status: 0 });
    expect((error as SdkError).message).toMatch(/ECONNREFUSED/);
    expect(requests).toHaveLength(2);
  });

  it('waits what Retry-After asks on a 429 (plus jitter), then succeeds', async () => {
    const tooMany = json(429, { statusCode: 429, message: 'Too Many Requests', error: 'Too Many Requests' }, { 'retry-after': '7' });
    const { client, clock, retries } = agent([tooMany, toolResult({ ok: true })]);
    await client.callTool('trading_portfolio_summary', {});
    expect(clock.sleeps).toEqual([7_000 + 50]);
    expect(retries).toEqual([{ attempt: 1, delayMs: 7_050, code: 'rate_limit_error' }]);
  });

  it('throws a rate_limit_error with retryAfter when retries are off, or when the wait is longer than maxRetryAfterMs', async () => {
    const tooMany = () => json(429, { message: 'Too Many Requests' }, { 'retry-after': '120' });
    const off = agent([tooMany()], { maxAttempts: 1 });
    await expect(off.client.listTools()).rejects.toMatchObject({
      code: 'rate_limit_error',
      status: 429,
      retryAfter: 120,
      message: 'Too Many Requests',
    });
    const long = agent([tooMany()]);
    await expect(long.client.listTools()).rejects.toMatchObject({ code: 'rate_limit_error', retryAfter: 120 });
    expect(long.clock.sleeps).toEqual([]);
  });

  it('never retries an execution_error, an auth_error or a policy_error', async () => {
    const failing = toolRefusal({
      code: 'CIRCUIT_BREAKER_OPEN',
      message: 'Circuit breaker open for provider: paper',
      retryable: true,
      retryAfter: 60,
    });
    const run = agent([failing]);
    await expect(run.client.callTool('trading_solana_aggregator_swap', SWAP)).rejects.toMatchObject({
      code: 'execution_error',
      status: 200,
      serverCode: 'CIRCUIT_BREAKER_OPEN',
      message: 'Circuit breaker open for provider: paper',
      retryAfter: 60,
    });
    expect(run.requests).toHaveLength(1);
    const rpcFailure = agent([json(200, { jsonrpc: '2.0', id: 1, error: { code: -32603, message: 'Tool execution failed: boom' } })]);
    await expect(rpcFailure.client.listTools()).rejects.toMatchObject({ code: 'execution_error', serverCode: -32603 });
    for (const [status, code] of [
      [401, 'auth_error'],
      [403, 'policy_error'],
    ] as const) {
      const refusedCall = agent([json(status, { statusCode: status, message: 'nope', error: 'x' })]);
      await expect(refusedCall.client.listTools()).rejects.toMatchObject({ code, status, message: 'nope' });
      expect(refusedCall.requests).toHaveLength(1);
    }
  });

  it('a fresh idempotency key per call, the given one when the caller names it', async () => {
    const { client, requests } = agent([toolResult(order), toolResult(order), toolResult(order), toolResult({})]);
    await client.callTool('trading_solana_aggregator_swap', SWAP);
    await client.callTool('trading_solana_aggregator_swap', SWAP);
    await client.callTool('trading_solana_aggregator_swap', SWAP, { idempotencyKey: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa' });
    expect(requests.map((r) => r.body.params.arguments.idempotencyKey)).toEqual([
      '00000000-0000-4000-8000-000000000001',
      '00000000-0000-4000-8000-000000000003',
      'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
    ]);
    // A tool that moves nothing gets none.
    await client.callTool('trading_portfolio_summary', {});
    expect(requests[3]!.body.params.arguments).toEqual({});
  });

  it('the backoff step doubles up to its cap; jitter keeps each wait within [step/2, step)', () => {
    const policy = { maxAttempts: 10, baseDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 60_000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(policy, n, () => 0))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([1, 2, 3, 4, 5, 6].map((n) => retryDelayMs(policy, n, () => 0.999999))).toEqual([99, 199, 399, 799, 999, 999]);
  });

  it("an AbortSignal stops the call and its retries with the signal's reason", async () => {
    const controller = new AbortController();
    const { client, requests } = agent([
      () => {
        controller.abort(new Error('caller gave up'));
        return refused();
      },
    ]);
    await expect(client.listTools({ signal: controller.signal })).rejects.toThrow('caller gave up');
    expect(requests).toHaveLength(1);
  });
});
