import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';
import { TRADING_RECORD_COLLECTIONS, TRADING_RECORDS } from '../../../agents/portfolio/portfolio.records.js';
import { formatUsd } from '../../../kernel/vocabulary/amounts.js';
import { StoreStatusReader, sumUsd } from '../../../agents/portfolio/status-reader.js';
import { agentDefinition } from '../../../machines/agent.machine.js';
import { botDefinition, DEFAULT_BOT_MCP } from '../../../machines/bot.machine.js';
import { orderDefinition } from '../../../machines/order.machine.js';
import { ActorRuntime } from '../../../src/runtime/actor-runtime.js';
import { collectionOf } from '../../../src/runtime/actor-storage.js';

const agentA = { type: 'agent', id: 'a1' } as const;
const actorsOf = (runtime: ActorRuntime) => ({
  agents: runtime.collection(agentDefinition),
  bots: runtime.collection(botDefinition),
  orders: runtime.collection(orderDefinition),
});

async function setup() {
  const clock = new ManualClock(Date.UTC(2026, 2, 1, 12));
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
  for (const id of ['a1', 'a2']) {
    await runtime.create('agent', id, { agentId: id, publicId: `p_${id}`, ownerId: 'u1', name: `Agent ${id}`, createdAt: clock.now() });
    await runtime.send({ type: 'agent', id }, { type: 'agent.activate' });
  }
  await runtime.send(agentA, { type: 'agent.trading.enable' });
  // As the composition root does at start.
  await store.init(TRADING_RECORD_COLLECTIONS);
  const reader = new StoreStatusReader({ actors: actorsOf(runtime), store, clock });
  const put = (collection: string, id: string, subject: string, data: unknown, extra: Record<string, string> = {}) =>
    store.put(collection, id, { data, expectedVersion: 0, indexes: { subject, ...extra } });
  return { runtime, store, clock, reader, put };
}

describe('StoreStatusReader', () => {
  it('reads the status of an agent and of a legacy bot', async () => {
    const { runtime, reader, clock } = await setup();
    expect(await reader.agentStatus(agentA)).toEqual({
      subjectType: 'agent',
      subjectId: 'a1',
      name: 'Agent a1',
      status: 'active',
      tradingEnabled: true,
    });
    await runtime.create('bot', 'b1', {
      botId: 'b1',
      publicId: 'pb1',
      ownerId: 'u1',
      name: 'Old bot',
      description: '',
      tradingEnabled: false,
      mcp: DEFAULT_BOT_MCP,
      createdAt: clock.now(),
    });
    expect(await reader.agentStatus({ type: 'bot', id: 'b1' })).toEqual({
      subjectType: 'bot',
      subjectId: 'b1',
      name: 'Old bot',
      status: 'active',
      tradingEnabled: false,
    });
  });

  it('404s a subject that does not exist', async () => {
    const { reader } = await setup();
    await expect(reader.portfolio({ type: 'agent', id: 'nope' })).rejects.toMatchObject({ kind: 'not_found', message: 'Agent not found' });
    await expect(reader.agentStatus({ type: 'bot', id: 'nope' })).rejects.toMatchObject({ kind: 'not_found', message: 'Bot not found' });
  });

  it('answers with empty lists while there are no trading records (nothing invented)', async () => {
    const { reader } = await setup();
    expect(await reader.portfolio(agentA)).toEqual({
      subjectType: 'agent',
      subjectId: 'a1',
      name: 'Agent a1',
      status: 'active',
      tradingEnabled: true,
      wallets: [],
      positions: [],
      openOrders: 0,
      valueUsd: '0.00',
      asOf: '2026-03-01T12:00:00.000Z',
    });
  });

  it('reads the subject’s own wallets, positions and open orders once they exist', async () => {
    const { reader, put } = await setup();
    await put(TRADING_RECORDS.wallets, 'w1', 'agent:a1', {
      walletId: 'w1',
      chain: 'solana',
      address: 'So1Addr',
      custodial: true,
      encryptedKey: 'c2VjcmV0',
    });
    await put(TRADING_RECORDS.wallets, 'w2', 'agent:a2', { walletId: 'w2', chain: 'evm', address: '0xabc', custodial: true });
    await put(TRADING_RECORDS.positions, 'p1', 'agent:a1', {
      chain: 'solana',
      token: 'BonkMint',
      symbol: 'BONK',
      amount: '1000000',
      valueUsd: '0.1',
    });
    await put(TRADING_RECORDS.positions, 'p2', 'agent:a1', { chain: 'solana', token: 'JupMint', amount: '20.5', valueUsd: '0.2' });
    await put(TRADING_RECORDS.positions, 'p3', 'agent:a1', { chain: 'solana', token: 'NoPrice', amount: '3' });
    await put(TRADING_RECORDS.positions, 'p4', 'agent:a1', { chain: 'solana', token: 'Closed', amount: '0.000', valueUsd: '0' });
    for (const [id, state] of [
      ['o1', 'pending_approval'],
      ['o2', 'submitted'],
      ['o3', 'filled'],
      ['o4', 'failed'],
    ] as const) {
      await put(
        collectionOf('order'),
        id,
        'agent:a1',
        {},
        { state, subjectOpen: `agent:a1|${state === 'filled' || state === 'failed' ? 'closed' : 'open'}` },
      );
    }
    await put(collectionOf('order'), 'o5', 'agent:a2', {}, { state: 'pending_approval', subjectOpen: 'agent:a2|open' });

    const summary = await reader.portfolio(agentA);
    expect(summary.wallets).toEqual([{ walletId: 'w1', chain: 'solana', address: 'So1Addr', custodial: true }]);
    expect(summary.positions).toEqual([
      { chain: 'solana', token: 'BonkMint', symbol: 'BONK', amount: '1000000', valueUsd: '0.1' },
      { chain: 'solana', token: 'JupMint', amount: '20.5', valueUsd: '0.2' },
      { chain: 'solana', token: 'NoPrice', amount: '3' },
    ]);
    expect(summary.openOrders).toBe(2);
    expect(summary.valueUsd).toBe('0.30'); // exact: 0.1 + 0.2 in floats is 0.30000000000000004
    expect(JSON.stringify(summary)).not.toContain('c2VjcmV0');
  });

  it('pages through many records', async () => {
    const { reader, put } = await setup();
    for (let i = 0; i < 450; i++)
      await put(TRADING_RECORDS.positions, `p${String(i).padStart(3, '0')}`, 'agent:a1', {
        chain: 'solana',
        token: `T${i}`,
        amount: '1',
        valueUsd: '1.01',
      });
    const summary = await reader.portfolio(agentA);
    expect(summary.positions).toHaveLength(450);
    expect(summary.valueUsd).toBe('454.50');
  });

  it('totals the unrounded values at the current price, and rounds each half cent up', async () => {
    const { store, put, runtime, clock } = await setup();
    const reader = new StoreStatusReader({ actors: actorsOf(runtime), store, clock, price: async () => 1 });
    await put(TRADING_RECORDS.positions, 'p1', 'agent:a1', { chain: 'solana', token: 'UsdcMint', symbol: 'USDC', amount: '1.005' });
    await put(TRADING_RECORDS.positions, 'p2', 'agent:a1', { chain: 'solana', token: 'UsdtMint', symbol: 'USDT', amount: '2.675' });
    const summary = await reader.portfolio(agentA);
    expect(summary.positions.map((position) => position.valueUsd)).toEqual(['1.01', '2.68']);
    expect(summary.valueUsd).toBe('3.68'); // 1.005 + 2.675, not 1.01 + 2.68
  });

  it('refuses a malformed record loudly instead of a silently wrong total', async () => {
    const { reader, put } = await setup();
    await put(TRADING_RECORDS.positions, 'bad', 'agent:a1', { chain: 'solana', token: 'X', amount: 12 });
    await expect(reader.portfolio(agentA)).rejects.toMatchObject({
      code: 'INTERNAL_SERVICE_ERROR',
      message: expect.stringContaining('trading.positions/bad'),
    });
  });
});

describe('formatUsd', () => {
  it('rounds a half cent away from zero, as sumUsd does, despite binary floats', () => {
    expect(formatUsd(1.005)).toBe('1.01');
    expect(formatUsd(2.675)).toBe('2.68');
    expect(formatUsd(-1.005)).toBe('-1.01');
    expect(formatUsd(0.004)).toBe('0.00');
    expect(formatUsd(-0.004)).toBe('0.00');
    expect(formatUsd(0.1 + 0.2)).toBe('0.30');
    expect(formatUsd(123456.785)).toBe('123456.79');
  });
});

describe('sumUsd', () => {
  it('adds decimal strings exactly and rounds half up to cents', () => {
    expect(sumUsd([])).toBe('0.00');
    expect(sumUsd(['1.005'])).toBe('1.01');
    expect(sumUsd(['0.004'])).toBe('0.00');
    expect(sumUsd(['0.1', '0.2'])).toBe('0.30');
    expect(sumUsd(['123456789012345678901234567890.99', '0.01'])).toBe('123456789012345678901234567891.00');
    expect(sumUsd(['7'])).toBe('7.00');
  });
});
