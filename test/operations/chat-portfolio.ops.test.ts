import { TRADING_RECORD_COLLECTIONS } from '../../agents/portfolio/portfolio.records.js';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { EmbeddedLlm } from '../../adapters/llm/embedded-llm.adapter.js';
import { MemoryStore } from '../support/memory-store.adapter.js';
import { AskBot } from '../../agents/chat/ask-bot.js';
import { StoreStatusReader } from '../../agents/portfolio/status-reader.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import { botDefinition, DEFAULT_BOT_MCP } from '../../machines/bot.machine.js';
import type { AuditEntry } from '../../src/operations/audit.types.js';
import { chatOperations } from '../../src/operations/definitions/chat.ops.js';
import { portfolioOperations } from '../../src/operations/definitions/portfolio.ops.js';
import { OperationCatalog } from '../../src/operations/operation-catalog.js';
import { OperationInvoker } from '../../src/operations/operation-invoker.js';
import type { OperationSubject, PrincipalKind } from '../../src/operations/operation.types.js';
import { orderDefinition } from '../../machines/order.machine.js';
import { ActorRuntime } from '../../src/runtime/actor-runtime.js';

async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 0, 2));
  const store = new MemoryStore(clock);
  const runtime = new ActorRuntime({
    store,
    clock,
    logger: pino({ level: 'silent' }),
    maxLiveActors: 100,
    idleMs: 60_000,
    maxConflictRetries: 3,
  });
  runtime.register(agentDefinition);
  runtime.register(botDefinition);
  runtime.register(orderDefinition);
  await runtime.start();
  await store.init(TRADING_RECORD_COLLECTIONS);
  await runtime.create('agent', 'a1', { agentId: 'a1', publicId: 'p1', ownerId: 'u1', name: 'Alpha', createdAt: clock.now() });
  await runtime.send({ type: 'agent', id: 'a1' }, { type: 'agent.activate' });
  await runtime.create('bot', 'b1', {
    botId: 'b1',
    publicId: 'pb1',
    ownerId: 'u1',
    name: 'Legacy',
    description: '',
    tradingEnabled: true,
    mcp: DEFAULT_BOT_MCP,
    createdAt: clock.now(),
  });
  const status = new StoreStatusReader({
    actors: {
      agents: runtime.collection(agentDefinition),
      bots: runtime.collection(botDefinition),
      orders: runtime.collection(orderDefinition),
    },
    store,
    clock,
  });
  const catalog = new OperationCatalog().register(
    ...chatOperations(new AskBot({ llm: new EmbeddedLlm(), status, clock })),
    ...portfolioOperations(status),
  );
  const audit: AuditEntry[] = [];
  const invoker = new OperationInvoker(catalog, { record: (entry) => audit.push(entry) }, clock);
  const call = (name: string, input: unknown, subject: OperationSubject = { type: 'agent', id: 'a1' }, scope: KeyScope = 'read') =>
    invoker.invoke({
      name,
      input,
      ctx: {
        principal: {
          type: subject.type === 'agent' ? 'agent-key' : 'bot-key',
          keyId: 'k1',
          scope,
          ownerId: 'u1',
          prefix: 'mcpk_abcdefgh',
          expiresAt: clock.now() + 1e9,
        },
        scope,
        subject,
        userId: 'u1',
        requestId: 'r1',
        correlationId: 'c1',
        surface: 'mcp',
      },
      viewer: { kind: subject.type, scope },
    });
  return { catalog, call, audit };
}

describe('ask_bot and trading_portfolio_summary operations', () => {
  it('are visible to every principal with read scope, in their families', async () => {
    const { catalog } = await setup();
    for (const kind of ['agent', 'bot', 'operator'] as PrincipalKind[]) {
      expect(catalog.visibleTo({ kind, scope: 'read' }).map((op) => op.name)).toEqual(['ask_bot', 'trading_portfolio_summary']);
    }
    expect(catalog.get('ask_bot')).toMatchObject({ family: 'chat', minScope: 'read' });
    expect(catalog.get('trading_portfolio_summary')).toMatchObject({ family: 'portfolio', minScope: 'read' });
    catalog.configure({ disabledFamilies: ['chat'], disabledOperations: [] });
    expect(catalog.visibleTo({ kind: 'agent', scope: 'manage' }).map((op) => op.name)).toEqual(['trading_portfolio_summary']);
  });

  it('ask_bot answers through the catalog and the answer fits its output schema', async () => {
    const { call, catalog, audit } = await setup();
    const answer = await call('ask_bot', { message: 'status', chat_id: 'tg-123' });
    expect(answer).toEqual({
      chat_id: 'tg-123',
      reply: 'Alpha (agent a1) is active; trading is disabled.',
      intent: 'status',
      params: {},
      confidence: 1,
    });
    expect(catalog.get('ask_bot')!.output!.parse(answer)).toEqual(answer);
    const trade = await call('ask_bot', { message: 'swap 100 USDC to SOL', chat_id: 'tg-123' });
    expect(trade).toMatchObject({ intent: 'swap', params: { amount: { value: '100' } } });
    expect(audit.at(-1)).toMatchObject({ operation: 'ask_bot', subject: 'agent:a1', outcome: 'ok' });
  });

  it.each([
    [{ chat_id: 'c' }, /message/],
    [{ message: '', chat_id: 'c' }, /message/],
    [{ message: 'x'.repeat(4001), chat_id: 'c' }, /message/],
    [{ message: 'status' }, /chat_id/],
    [{ message: 'status', chat_id: 7 }, /chat_id/],
    [{ message: 'status', chat_id: 'c', extra: true }, /extra/],
  ])('ask_bot refuses %j with 400', async (input, field) => {
    const { call } = await setup();
    await expect(call('ask_bot', input)).rejects.toMatchObject({
      kind: 'invalid',
      code: 'VALIDATION_ERROR',
      message: expect.stringMatching(field),
    });
  });

  it('trading_portfolio_summary answers for an agent and, with the same shape, for a legacy bot', async () => {
    const { call, catalog } = await setup();
    const agent = await call('trading_portfolio_summary', {});
    expect(agent).toEqual({
      subjectType: 'agent',
      subjectId: 'a1',
      name: 'Alpha',
      status: 'active',
      tradingEnabled: false,
      wallets: [],
      positions: [],
      openOrders: 0,
      valueUsd: '0.00',
      asOf: '2026-01-02T00:00:00.000Z',
    });
    expect(catalog.get('trading_portfolio_summary')!.output!.parse(agent)).toEqual(agent);
    expect(await call('trading_portfolio_summary', undefined, { type: 'bot', id: 'b1' })).toMatchObject({
      subjectType: 'bot',
      subjectId: 'b1',
      name: 'Legacy',
      tradingEnabled: true,
    });
  });

  it('trading_portfolio_summary takes no arguments', async () => {
    const { call } = await setup();
    await expect(call('trading_portfolio_summary', { agentId: 'someone-else' })).rejects.toMatchObject({ kind: 'invalid' });
  });

  it('404s when the subject is gone', async () => {
    const { call } = await setup();
    await expect(call('trading_portfolio_summary', {}, { type: 'agent', id: 'ghost' })).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Agent not found',
    });
  });
});
