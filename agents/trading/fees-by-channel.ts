import type { OrderContext } from '../../machines/order.machine.js';
import type { ActorCollection } from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';

/**
 * Trading fees by channel (the legacy routes `GET /api/nest/bots/:botId/trading/fees/channels`):
 * the venue fees of an account's filled orders, summed per channel the orders came through.
 * An order's channel is what placed it (`TradeChannel`); the route's channels group them:
 * the web console's REST calls, commands and chat are `web`; MCP tools and `ask_bot` are
 * `mcp`; the Telegram and Discord connectors, the widget and DCA ticks their own.
 */
export const FEE_CHANNELS = ['web', 'mcp', 'telegram', 'discord', 'widget', 'dca'] as const;
export type FeeChannel = (typeof FEE_CHANNELS)[number];

const CHANNEL_OF: Readonly<Record<string, FeeChannel>> = {
  rest: 'web',
  command: 'web',
  chat: 'web',
  mcp: 'mcp',
  ask_bot: 'mcp',
  telegram: 'telegram',
  discord: 'discord',
  widget: 'widget',
  dca: 'dca',
};

export interface ChannelFees {
  channel: FeeChannel;
  /** Filled orders counted. */
  orders: number;
  /** USD value of their inputs at quote time, 2 decimals. */
  volumeUsd: string;
  /** USD value of their venue fees at quote time, 6 decimals (fees of small orders are fractions of a cent). */
  feeUsd: string;
}

export interface FeesByChannel {
  channels: ChannelFees[];
  total: Omit<ChannelFees, 'channel'>;
  /** Filled orders placed before fees were kept on orders: counted in `orders` and `volumeUsd`, not in `feeUsd`. */
  ordersWithoutFee: number;
  /** ISO 8601. */
  asOf: string;
}

const PAGE = 500;

export class FeesByChannelReader {
  constructor(
    private readonly orders: Pick<ActorCollection<OrderContext>, 'find'>,
    private readonly clock: ClockPort,
  ) {}

  /** Sums the account's filled orders (created in `[from, to)` when given, epoch ms) by channel. */
  async read(subject: TradingSubject, window: { from?: number; to?: number } = {}): Promise<FeesByChannel> {
    const sums = new Map<FeeChannel, { orders: number; volumeUsd: number; feeUsd: number }>(
      FEE_CHANNELS.map((channel) => [channel, { orders: 0, volumeUsd: 0, feeUsd: 0 }]),
    );
    let ordersWithoutFee = 0;
    const prefix = `${subjectKey(subject)}|filled`;
    let cursor: string | undefined;
    do {
      // The account's filled orders only, through the index its approvals list uses.
      const page = await this.orders.find(
        { index: 'subjectStatus', gte: `${prefix}|`, lte: `${prefix}|~` },
        { limit: PAGE, ...(cursor ? { cursor } : {}) },
      );
      for (const { context: order } of page.items) {
        if ((window.from !== undefined && order.createdAt < window.from) || (window.to !== undefined && order.createdAt >= window.to))
          continue;
        // A channel this build does not know was a web caller's (every other one is named above).
        const sum = sums.get(CHANNEL_OF[order.channel] ?? 'web')!;
        sum.orders++;
        sum.volumeUsd += order.valueUsd;
        if (order.feeAmount === undefined) ordersWithoutFee++;
        else sum.feeUsd += feeUsd(order);
      }
      cursor = page.nextCursor;
    } while (cursor);
    const channels = [...sums].map(([channel, sum]) => ({ channel, ...format(sum) }));
    const total = [...sums.values()].reduce(
      (acc, sum) => ({ orders: acc.orders + sum.orders, volumeUsd: acc.volumeUsd + sum.volumeUsd, feeUsd: acc.feeUsd + sum.feeUsd }),
      { orders: 0, volumeUsd: 0, feeUsd: 0 },
    );
    return { channels, total: format(total), ordersWithoutFee, asOf: new Date(this.clock.now()).toISOString() };
  }
}

/** The fee's share of the input, valued as the input was at quote time. */
function feeUsd(order: OrderContext): number {
  const amountIn = BigInt(order.amountIn);
  if (amountIn === 0n) return 0;
  // Parts per billion keep the ratio exact enough in a Number whatever the token's decimals.
  const ppb = (BigInt(order.feeAmount ?? '0') * 1_000_000_000n) / amountIn;
  return (Number(ppb) / 1e9) * order.valueUsd;
}

function format(sum: { orders: number; volumeUsd: number; feeUsd: number }): Omit<ChannelFees, 'channel'> {
  return { orders: sum.orders, volumeUsd: sum.volumeUsd.toFixed(2), feeUsd: sum.feeUsd.toFixed(6) };
}
