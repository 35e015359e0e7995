import { describe, expect, it } from 'vitest';
import { FeesByChannelReader } from '../../../agents/trading/fees-by-channel.js';
import type { OrderContext } from '../../../machines/order.machine.js';
import type { IndexQuery } from '../../../kernel/ports/store.port.js';

const base = { subjectType: 'bot', subjectId: 'bot_1', status: 'filled', amountIn: '1000000', createdAt: 10 } as const;
const order = (fields: Partial<OrderContext>): OrderContext => ({ ...base, ...fields }) as OrderContext;

/** The orders' index as the runtime answers it: by `subjectStatus` prefix, in pages. */
function ordersOf(orders: OrderContext[], pageSize = 2) {
  return {
    async find(query: IndexQuery, page: { limit: number; cursor?: string }) {
      const matches = orders.filter(
        (o) =>
          `${o.subjectType}:${o.subjectId}|${o.status}|` >= String(query.gte) &&
          `${o.subjectType}:${o.subjectId}|${o.status}|` <= String(query.lte),
      );
      const start = Number(page.cursor ?? 0);
      const items = matches.slice(start, start + Math.min(pageSize, page.limit)).map((context) => ({ context }) as never);
      return { items, ...(start + pageSize < matches.length ? { nextCursor: String(start + pageSize) } : {}) };
    },
  };
}

describe('fees by channel', () => {
  it('groups filled orders by channel (old channel names included), values fees at quote time, counts orders without a kept fee', async () => {
    const reader = new FeesByChannelReader(
      ordersOf([
        order({ channel: 'rest', valueUsd: 100, feeAmount: '3000' }),
        order({ channel: 'command', valueUsd: 50, feeAmount: '1500' }),
        order({ channel: 'chat', valueUsd: 10 }),
        order({ channel: 'mcp', valueUsd: 200, feeAmount: '10000' }),
        order({ channel: 'ask_bot', valueUsd: 1, feeAmount: '0' }),
        order({ channel: 'telegram', valueUsd: 20, feeAmount: '3000' }),
        order({ channel: 'dca', valueUsd: 5, feeAmount: '3000', createdAt: 99 }),
        order({ channel: 'rest', valueUsd: 1000, feeAmount: '3000', status: 'failed' }),
        order({ channel: 'rest', valueUsd: 1000, feeAmount: '3000', subjectId: 'bot_2' }),
      ]),
      { now: () => 0, setTimer: () => () => undefined },
    );
    const fees = await reader.read({ type: 'bot', id: 'bot_1' });
    const row = (channel: string) => fees.channels.find((r) => r.channel === channel);
    expect(row('web')).toEqual({ channel: 'web', orders: 3, volumeUsd: '160.00', feeUsd: '0.375000' });
    expect(row('mcp')).toEqual({ channel: 'mcp', orders: 2, volumeUsd: '201.00', feeUsd: '2.000000' });
    expect(row('telegram')).toEqual({ channel: 'telegram', orders: 1, volumeUsd: '20.00', feeUsd: '0.060000' });
    expect(row('discord')).toEqual({ channel: 'discord', orders: 0, volumeUsd: '0.00', feeUsd: '0.000000' });
    expect(row('dca')).toMatchObject({ orders: 1, feeUsd: '0.015000' });
    expect(fees.total).toEqual({ orders: 7, volumeUsd: '386.00', feeUsd: '2.450000' });
    expect(fees.ordersWithoutFee).toBe(1);

    const window = await reader.read({ type: 'bot', id: 'bot_1' }, { from: 50 });
    expect(window.total.orders).toBe(1);
  });
});
