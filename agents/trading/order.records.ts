/**
 * The fixed names and times of an order, agreed on by the pipeline, the queries, the
 * reconciler, DCA ticks and the composition root.
 */

/** The order machine's type name in the runtime. */
export const ORDER_TYPE = 'order' as const;
/** A pending approval expires after 15 minutes (orders). */
export const APPROVAL_WINDOW_MS = 15 * 60 * 1000;
/** The scheduler job that expires an order's pending approval. */
export const expiryJobId = (orderId: string) => `order-expire:${orderId}`;
