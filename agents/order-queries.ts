import type { OrderContext, OrderStatus } from '../machines/order.machine.js';
import { ORDER_TYPE, toOrderView, type OrderActors, type OrderView } from './order.types.js';
import { subjectKey, type TradingSubject } from './portfolio.types.js';

export interface OrderPage {
  items: OrderView[];
  nextCursor?: string;
}

/** Lists an account's orders from the order actors' indexes (no scan of other accounts). */
export class OrderQueries {
  constructor(private readonly orders: Pick<OrderActors, 'find'>) {}

  /** Newest first; with `status`, only orders in that status. */
  async list(subject: TradingSubject, options: { status?: OrderStatus; limit: number; cursor?: string }): Promise<OrderPage> {
    const key = subjectKey(subject);
    // `<prefix>|` then digits of inverted time: every key of the prefix sorts between these bounds, newest first.
    const prefix = options.status ? `${key}|${options.status}` : key;
    const query = { index: options.status ? 'subjectStatus' : 'subjectTime', gte: `${prefix}|`, lte: `${prefix}|~` };
    const page = await this.orders.find(ORDER_TYPE, query, { limit: options.limit, ...(options.cursor ? { cursor: options.cursor } : {}) });
    const items = page.items.map((view) => toOrderView(view.context as OrderContext));
    return { items, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  }

  /** Orders waiting for approval (interface 4.2 `GET approvals/:userId`). */
  pendingApprovals(subject: TradingSubject, page: { limit: number; cursor?: string }): Promise<OrderPage> {
    return this.list(subject, { status: 'pending_approval', ...page });
  }
}
