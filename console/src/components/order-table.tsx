/** Orders as a table: what was traded, for how much, its status and the checks it passed. */
import type { ComponentChildren } from 'preact';
import type { TradingOrdersListOutput } from 'agent-runtime-sdk';
import { fromUnits, tokens, usd, when, words } from '../format.js';
import { ActorLink } from './actor-link.js';
import { ScrollRegion } from './scroll-region.js';

export type Order = TradingOrdersListOutput['items'][number];

/** "10 USDC → 0.0651 SOL" (expected out until filled). */
export function orderSummary(order: Order): string {
  const out = order.filledOut ?? order.expectedOut;
  return `${tokens(fromUnits(order.amountIn, order.inputDecimals))} ${order.inputSymbol} → ${tokens(fromUnits(out, order.outputDecimals))} ${order.outputSymbol}`;
}

export function OrderTable(props: { orders: Order[]; caption: string; actions?: (order: Order) => ComponentChildren }) {
  return (
    <ScrollRegion class="table-wrap" label={props.caption}>
      <table class="stacked">
        <caption class="sr-only">{props.caption}</caption>
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Side</th>
            <th scope="col">Value</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            {props.actions ? (
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {props.orders.map((order) => (
            <tr key={order.order_id}>
              <td class="wrap" data-label="Order">
                {orderSummary(order)}
                <div class="muted small">
                  {order.chain} · {order.venue} · via {order.channel}
                  {order.strategy ? ` · DCA ${order.strategy}` : ''}
                </div>
                {order.reason ? <div class="error small">{order.reason}</div> : null}
                <ActorLink type="order" id={order.order_id} what={`order ${orderSummary(order)}`} />
              </td>
              <td data-label="Side">{order.side}</td>
              <td data-label="Value">{usd(order.valueUsd)}</td>
              <td data-label="Status">
                <span class={`badge ${order.status}`}>{words(order.status)}</span>
                {order.approvalExpiresAt && order.status === 'pending_approval' ? (
                  <div class="muted small">until {new Date(order.approvalExpiresAt).toLocaleTimeString()}</div>
                ) : null}
              </td>
              <td data-label="Created">{when(order.createdAt)}</td>
              {props.actions ? <td class="cell-actions">{props.actions(order)}</td> : null}
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
