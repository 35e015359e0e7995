/**
 * An agent's trading: the command box, the approvals inbox (approve or reject held orders),
 * whether orders wait for approval, and its orders filtered by status and side.
 */
import { useState } from 'preact/hooks';
import { ApprovalButtons } from '../components/approval-buttons.js';
import { ApprovalSetting } from '../components/approval-setting.js';
import { CommandBox } from '../components/command-box.js';
import { type Order, OrderTable } from '../components/order-table.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { type OrderStatus as Status, useApprovals, useOrders } from '../queries/trading.queries.js';
import { words } from '../format.js';

const STATUSES: Status[] = [
  'pending_approval',
  'approved',
  'submitting',
  'submitted',
  'filled',
  'failed',
  'rejected',
  'cancelled',
  'expired',
];
type Side = Order['side'];

export function TradingPage({ agentId, refreshKey }: { agentId: string; refreshKey: number }) {
  const [status, setStatus] = useState<Status | ''>('');
  const [side, setSide] = useState<Side | ''>('');
  const [bump, setBump] = useState(0);
  const reloadAll = () => setBump((n) => n + 1);
  // Changes made here and live events both read everything again.
  const version = bump + refreshKey;
  const approvals = useApprovals(agentId, version);
  // The route filters by status; the side filter applies to the page read (the newest 200).
  const orders = useOrders(agentId, status, version);
  const shown = orders.data?.items.filter((order) => side === '' || order.side === side) ?? [];

  return (
    <>
      <CommandBox agentId={agentId} onDone={reloadAll} />
      <ApprovalSetting agentId={agentId} />

      <section aria-labelledby="approvals-title">
        <h2 id="approvals-title">Waiting for your approval</h2>
        {approvals.loading && !approvals.data ? <Loading what="held orders" /> : null}
        <ErrorText text={approvals.error} />
        {approvals.data && approvals.data.items.length === 0 ? <Empty>No order is waiting for approval.</Empty> : null}
        {approvals.data && approvals.data.items.length > 0 ? (
          <OrderTable
            orders={approvals.data.items}
            caption="Orders waiting for approval"
            actions={(order) => <ApprovalButtons agentId={agentId} order={order} onDone={reloadAll} />}
          />
        ) : null}
      </section>

      <section aria-labelledby="orders-title">
        <h2 id="orders-title">Orders</h2>
        <div class="row filters">
          <label>
            Status
            <select value={status} onChange={(event) => setStatus(event.currentTarget.value as Status | '')}>
              <option value="">any status</option>
              {STATUSES.map((value) => (
                <option key={value} value={value}>
                  {words(value)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Side
            <select value={side} onChange={(event) => setSide(event.currentTarget.value as Side | '')}>
              <option value="">any side</option>
              <option value="buy">buy</option>
              <option value="sell">sell</option>
              <option value="swap">swap</option>
            </select>
          </label>
        </div>
        {orders.loading && !orders.data ? <Loading what="orders" /> : null}
        <ErrorText text={orders.error} />
        {orders.data && shown.length === 0 ? (
          <Empty>{status || side ? 'No order matches these filters.' : 'No orders yet. Send a command above to place one.'}</Empty>
        ) : null}
        {shown.length > 0 ? <OrderTable orders={shown} caption="Orders of this agent" /> : null}
      </section>
    </>
  );
}
