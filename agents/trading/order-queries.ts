import type { OrderContext, OrderStatus } from '../../machines/order.machine.js';
import type { ActorCollection } from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { OrderView } from './order.types.js';
import { toOrderView } from '../../machines/order-view.js';
import type { TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';

export interface OrderPage {
  items: OrderView[];
  nextCursor?: string;
}

/** Lists an account's orders from the order actors' indexes (no scan of other accounts). */
export class OrderQueries {
  constructor(
    private readonly orders: Pick<ActorCollection<OrderContext>, 'find'>,
    private readonly clock: ClockPort,
  ) {}

  /** Newest first; with `status`, only orders in that status. */
  list(subject: TradingSubject, options: { status?: OrderStatus; limit: number; cursor?: string }): Promise<OrderPage> {
    return this.page(subject, options, () => true);
  }

  /**
   * Orders that can still be approved (the trading routes `GET approvals/:userId`): waiting, and
   * inside their 15-minute window. One whose window closed is left out even before its
   * expiry job ran (an approval would be refused with `expired`); a page may then hold
   * fewer items than `limit` and still have a `nextCursor`.
   */
  pendingApprovals(subject: TradingSubject, page: { limit: number; cursor?: string }): Promise<OrderPage> {
    const now = this.clock.now();
    return this.page(
      subject,
      { status: 'pending_approval', ...page },
      (order) => order.approvalExpiresAt === undefined || order.approvalExpiresAt > now,
    );
  }

  private async page(
    subject: TradingSubject,
    options: { status?: OrderStatus; limit: number; cursor?: string },
    keep: (order: OrderContext) => boolean,
  ): Promise<OrderPage> {
    const key = subjectKey(subject);
    // `<prefix>|` then digits of inverted time: every key of the prefix sorts between these bounds, newest first.
    const prefix = options.status ? `${key}|${options.status}` : key;
    const query = { index: options.status ? 'subjectStatus' : 'subjectTime', gte: `${prefix}|`, lte: `${prefix}|~` };
    const page = await this.orders.find(query, { limit: options.limit, ...(options.cursor ? { cursor: options.cursor } : {}) });
    const items = page.items
      .map((view) => view.context)
      .filter(keep)
      .map(toOrderView);
    return { items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }
}
