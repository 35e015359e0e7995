import type { Logger } from 'pino';
import type { OrderContext } from '../../machines/order.machine.js';
import type { ActorCollection } from '../../kernel/ports/actor-collection.port.js';
import type { TradingPipeline } from './trading-pipeline.js';

/**
 * Finishes orders left in flight (recovery at start and the periodic sweep): asks the
 * venue, never sends twice (TradingPipeline.reconcile). A DCA buy that settles here, after
 * its tick ended, is reported to its strategy, which counts it then.
 */
export class OrderReconciler {
  constructor(
    private readonly deps: {
      pipeline: Pick<TradingPipeline, 'reconcile'>;
      orders: Pick<ActorCollection<OrderContext>, 'get'>;
      strategies: { orderSettled(order: OrderContext): Promise<void> };
      logger: Pick<Logger, 'warn'>;
    },
  ) {}

  /** Never throws: what fails now is tried again by the next sweep. */
  async reconcile(order: OrderContext): Promise<void> {
    const { orderId } = order;
    await this.deps.pipeline
      .reconcile(order)
      .catch((error: unknown) => this.deps.logger.warn({ err: error, order: orderId }, 'order reconciliation failed; retried later'));
    if (!order.strategyId) return;
    try {
      const settled = await this.deps.orders.get(orderId);
      if (settled) await this.deps.strategies.orderSettled(settled.context);
    } catch (error) {
      this.deps.logger.warn({ err: error, order: orderId }, 'DCA outcome of a settled order not recorded');
    }
  }
}
