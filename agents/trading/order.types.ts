export type { OrderView } from '../../machines/order-view.js';
