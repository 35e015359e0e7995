/**
 * Every SDK error code from a real condition (the SDK error mapping): the real service for 401, 403,
 * 429, tool errors and refused parameters; a closed port, a silent server and a server that
 * answers HTML for what only a broken network path produces. `provider_auth_error` from the
 * real onboarding routes is in onboarding.e2e.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentClient, OperatorClient, naclSigner, type SdkError } from '../../sdk/src/index.js';
import { Operator } from '../support/mcp-fixtures.js';
import { PUBLIC_URL, startTestService, type TestService } from '../support/test-service.js';
import nacl from 'tweetnacl';
import { DrivenClock } from './sdk-fakes.js';

let svc: TestService;
let operator: Operator;
let agent: { agentId: string; publicId: string };

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected an SdkError'),
    (error: SdkError) => error,
  );

async function listening(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

beforeAll(async () => {
  svc = await startTestService();
  operator = await Operator.signIn(svc);
  agent = await operator.agent('sdk-errors');
});
afterAll(() => svc.stop());

const client = (apiKey: string, extra: Partial<ConstructorParameters<typeof AgentClient>[0]> = {}) =>
  new AgentClient({ baseUrl: svc.url, publicId: agent.publicId, apiKey, ...extra });

describe('SDK errors from real conditions', () => {
  it("auth_error: a revoked key (401, the service's message)", async () => {
    const { keyId, secret } = await operator.agentKey(agent.agentId, 'read', 'revoked');
    await operator.revokeAgentKey(agent.agentId, keyId);
    const error = await caught(client(secret).listTools());
    expect(error).toMatchObject({ code: 'auth_error', status: 401, message: 'Unauthorized', serverCode: -32001 });
  });

  it('policy_error: a read key calling a trade tool (403 Scope insufficient)', async () => {
    const { secret } = await operator.agentKey(agent.agentId, 'read', 'reader');
    const error = await caught(
      client(secret).callTool('trading_solana_aggregator_swap', { inputMint: 'USDC', outputMint: 'SOL', amount: '1' }),
    );
    expect(error).toMatchObject({ code: 'policy_error', status: 403, message: 'Scope insufficient: required trade, got read' });
  });

  it('execution_error: a tool that fails (no custodial wallet), not retried', async () => {
    const { secret } = await operator.agentKey(agent.agentId, 'trade', 'trader');
    let retries = 0;
    const error = await caught(
      client(secret, { onRetry: () => retries++ }).callTool('trading_solana_aggregator_swap', {
        inputMint: 'USDC',
        outputMint: 'SOL',
        amount: '1000000',
      }),
    );
    expect(error).toMatchObject({ code: 'execution_error', status: 200 });
    expect(error.message).toMatch(/./);
    expect(retries).toBe(0);
  });

  it("unknown_error: arguments the tool refuses (JSON-RPC -32602, the service's message)", async () => {
    const { secret } = await operator.agentKey(agent.agentId, 'trade', 'trader-2');
    const error = await caught(
      client(secret).callAnyTool('trading_solana_aggregator_swap', {
        inputMint: 'USDC',
        outputMint: 'SOL',
        amount: '1',
        idempotencyKey: 'nope',
      }),
    );
    expect(error).toMatchObject({
      code: 'unknown_error',
      status: 200,
      serverCode: -32602,
      message: 'INVALID_PARAMS: idempotencyKey: must be a UUID v4',
    });
  });

  it('rate_limit_error with retryAfter once a manage key spent its 30 a minute; retried after Retry-After on a driven clock', async () => {
    const { secret } = await operator.agentKey(agent.agentId, 'manage', 'manager');
    const noRetry = client(secret, { retry: { maxAttempts: 1 } });
    for (let i = 0; i < 30; i++) await noRetry.callTool('trading_portfolio_summary', {});
    const error = await caught(noRetry.listTools());
    expect(error).toMatchObject({ code: 'rate_limit_error', status: 429, message: 'Too Many Requests' });
    expect(error.retryAfter).toBeGreaterThan(0);
    expect(error.retryAfter).toBeLessThanOrEqual(60);

    const clock = new DrivenClock();
    const waits: number[] = [];
    const retrying = client(secret, { clock, random: () => 0, retry: { maxAttempts: 3 }, onRetry: ({ delayMs }) => waits.push(delayMs) });
    const again = await caught(retrying.listTools());
    expect(again.code).toBe('rate_limit_error');
    expect(waits).toHaveLength(2);
    // The driven clock never really waits, so the service still refuses: each wait is the server's Retry-After.
    for (const wait of waits) expect(wait).toBeGreaterThanOrEqual(1_000);
    expect(clock.sleeps).toEqual(waits);
  });

  it('network_error: connection refused, retried with backoff, then thrown', async () => {
    const { server, url } = await listening(() => undefined);
    await new Promise((resolve) => server.close(resolve));
    const clock = new DrivenClock();
    const sdk = new AgentClient({
      baseUrl: url,
      publicId: 'pub_x',
      apiKey: 'mcpk_x',
      clock,
      random: () => 0,
      retry: { maxAttempts: 3, baseDelayMs: 100 },
    });
    const error = await caught(sdk.listTools());
    expect(error).toMatchObject({ code: 'network_error', status: 0 });
    expect(error.message).toMatch(/ECONNREFUSED/);
    expect(clock.sleeps).toEqual([50, 100]);
  });

  it('network_error: a server that never answers, after timeoutMs', async () => {
    const { server, url } = await listening(() => undefined);
    try {
      const sdk = new AgentClient({ baseUrl: url, publicId: 'pub_x', apiKey: 'mcpk_x', timeoutMs: 200, retry: { maxAttempts: 1 } });
      await expect(sdk.listTools()).rejects.toMatchObject({ code: 'network_error', message: 'Request timed out after 200 ms' });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("invalid_response: an HTML page (a proxy's) or a JSON body that is not JSON-RPC", async () => {
    const { server, url } = await listening((req, res) => {
      if (req.url?.startsWith('/mcp/html')) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Bad gateway</html>');
      } else {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"hello":"world"}');
      }
    });
    try {
      const html = await caught(new AgentClient({ baseUrl: url, publicId: 'html', apiKey: 'mcpk_x' }).listTools());
      expect(html).toMatchObject({ code: 'invalid_response', status: 200, body: '<html>Bad gateway</html>' });
      expect(html.message).toBe('The service answered 200 with a body that is not JSON (text/html)');
      const json = await caught(new AgentClient({ baseUrl: url, publicId: 'json', apiKey: 'mcpk_x' }).listTools());
      expect(json).toMatchObject({ code: 'invalid_response', message: 'The answer is not a JSON-RPC 2.0 response' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('operator: CSRF handled on mutating calls; policy_error for a manage key without step-up; auth_error once signed out', async () => {
    const sdk = new OperatorClient({ baseUrl: svc.url, publicUrl: PUBLIC_URL });
    await sdk.signInWithSolana(naclSigner(nacl.sign.keyPair()));
    // A mutating call carries the session's CSRF token (a 403 otherwise).
    const created = await sdk.agents.create({ name: 'csrf' });
    expect(created.publicId).toMatch(/^pub_/);
    const noStepUp = await caught(sdk.keys.create(created.agentId, { name: 'admin', scope: 'manage' }));
    expect(noStepUp).toMatchObject({ code: 'policy_error', status: 403, message: 'Step-up token required for manage scope' });
    await sdk.signOut();
    const refused = await caught(sdk.agents.list());
    expect(refused).toMatchObject({ code: 'auth_error', status: 0, message: 'Not signed in' });
  });
});
