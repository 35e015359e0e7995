export { toOrderView, type OrderView } from '../machines/order-view.js';

/** The order machine's type name in the runtime. */
export const ORDER_TYPE = 'order' as const;
/** A pending approval expires after 15 minutes (CONTRACT "Orders"). */
export const APPROVAL_WINDOW_MS = 15 * 60 * 1000;
export const expiryJobId = (orderId: string) => `order-expire:${orderId}`;
