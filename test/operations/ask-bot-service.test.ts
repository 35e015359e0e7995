import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.js';

/** The real composition (LMDB store, embedded LLM): ask_bot and the portfolio tool are registered and answer. */
describe('ask_bot in the running service', () => {
  let svc: TestService;
  let agentId: string;

  beforeAll(async () => {
    svc = await startTestService();
    agentId = (await svc.service.services.agents.create('user-1', { name: 'Alpha' })).agentId;
  });
  afterAll(async () => svc.stop());

  const call = (name: string, input: unknown) =>
    svc.service.operations.invoker.invoke({
      name,
      input,
      ctx: {
        principal: {
          type: 'agent-key',
          keyId: 'k1',
          scope: 'read',
          ownerId: 'user-1',
          prefix: 'mcpk_abcdefgh',
          expiresAt: Date.now() + 60_000,
        },
        scope: 'read',
        subject: { type: 'agent', id: agentId },
        userId: 'user-1',
        requestId: 'r1',
        correlationId: 'c1',
        surface: 'mcp',
      },
      viewer: { kind: 'agent', scope: 'read' },
    });

  it('answers status and portfolio from the stored agent, with nothing invented', async () => {
    expect(await call('ask_bot', { message: 'status', chat_id: 'c1' })).toEqual({
      chat_id: 'c1',
      reply: `Alpha (agent ${agentId}) is active; trading is disabled.`,
      intent: 'status',
      params: {},
      confidence: 1,
    });
    expect(await call('trading_portfolio_summary', {})).toMatchObject({
      subjectId: agentId,
      wallets: [],
      positions: [],
      openOrders: 0,
      valueUsd: '0.00',
    });
    expect(await call('ask_bot', { message: 'buy 0.5 SOL of BONK', chat_id: 'c1' })).toMatchObject({
      intent: 'buy',
      reply: expect.stringContaining('Nothing was executed'),
    });
  });
});
