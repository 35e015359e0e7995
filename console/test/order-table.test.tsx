// @vitest-environment happy-dom
/**
 * Orders as a person reads them: the order table (what was traded, status, why it failed, until
 * when it waits), and the trading page's order list with its filters and empty states. The
 * status filter is the route's (a query parameter), the side filter the page's.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OrderTable } from '../src/components/order-table.js';
import { TradingPage } from '../src/pages/trading.page.js';
import { type FakeService, json, OPERATOR, signedInService } from './support/fake-service.js';
import { order } from './support/order.fixture.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('OrderTable', () => {
  it('shows each order: amounts, side, value, status, the failure reason, and actions for it', () => {
    const orders = [
      order({ order_id: 'ord_a' }),
      order({
        order_id: 'ord_b',
        side: 'buy',
        status: 'failed',
        filledOut: undefined,
        reason: 'Slippage tolerance exceeded',
        valueUsd: '25.5',
      }),
    ];
    render(
      <OrderTable orders={orders} caption="Orders of this agent" actions={(o) => <button type="button">Cancel {o.order_id}</button>} />,
    );
    const table = screen.getByRole('table', { name: 'Orders of this agent' });
    const [, filled, failed] = within(table).getAllByRole('row');
    expect(filled?.textContent).toContain('10 USDC → 0.065 SOL');
    expect(within(filled!).getByText('filled')).toBeTruthy();
    // Not filled: the amount expected is shown.
    expect(failed?.textContent).toContain('10 USDC → 0.0651 SOL');
    expect(within(failed!).getByText('Slippage tolerance exceeded')).toBeTruthy();
    expect(within(failed!).getByText('buy')).toBeTruthy();
    expect(within(failed!).getByText('$25.50')).toBeTruthy();
    expect(within(failed!).getByRole('button', { name: 'Cancel ord_b' })).toBeTruthy();
  });

  it('says until when a held order waits for approval', () => {
    const until = '2025-01-02T03:20:00.000Z';
    render(<OrderTable orders={[order({ status: 'pending_approval', approvalExpiresAt: until })]} caption="Held" />);
    expect(screen.getByText('pending approval')).toBeTruthy();
    expect(screen.getByText(`until ${new Date(until).toLocaleTimeString()}`)).toBeTruthy();
  });
});

describe('Trading page: orders, filters and empty states', () => {
  let service: FakeService;
  const base = `/api/nest/trading`;
  beforeEach(async () => {
    service = await signedInService();
    service
      .on('GET', `${base}/config/${OPERATOR.id}/default-order-profile`, () => json(200, { autoApprove: true }))
      .on('GET', `${base}/approvals/${OPERATOR.id}`, () => json(200, { items: [] }));
  });

  const ordersTable = () => screen.queryByRole('table', { name: 'Orders of this agent' });
  const rows = () => within(ordersTable()!).getAllByRole('row').slice(1);

  it('says there are no orders yet, pointing at the command box', async () => {
    service.on('GET', `${base}/orders/${OPERATOR.id}`, () => json(200, { items: [] }));
    render(<TradingPage agentId="agt_1" refreshKey={0} />);
    await screen.findByText('No orders yet. Send a command above to place one.');
    expect(ordersTable()).toBeNull();
    expect(screen.getByText('No order is waiting for approval.')).toBeTruthy();
  });

  it('filters by status at the service and by side in the page, and says when nothing matches', async () => {
    const all = [order({ side: 'swap' }), order({ side: 'buy', outputSymbol: 'BONK' }), order({ side: 'swap', status: 'failed' })];
    service.on('GET', `${base}/orders/${OPERATOR.id}`, (request) => {
      const status = request.query.get('status');
      return json(200, { items: all.filter((o) => !status || o.status === status) });
    });
    render(<TradingPage agentId="agt_1" refreshKey={0} />);
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(service.calls('GET', `${base}/orders/${OPERATOR.id}`)[0]?.query.get('agentId')).toBe('agt_1');

    fireEvent.change(screen.getByRole('combobox', { name: 'Side' }), { target: { value: 'buy' } });
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(rows()[0]?.textContent).toContain('BONK');

    fireEvent.change(screen.getByRole('combobox', { name: 'Status' }), { target: { value: 'failed' } });
    await screen.findByText('No order matches these filters.');
    expect(service.calls('GET', `${base}/orders/${OPERATOR.id}`).at(-1)?.query.get('status')).toBe('failed');

    fireEvent.change(screen.getByRole('combobox', { name: 'Side' }), { target: { value: '' } });
    await waitFor(() => expect(rows()).toHaveLength(1));
    expect(within(rows()[0]!).getByText('failed')).toBeTruthy();
  });

  it("shows the service's error when the orders cannot be read", async () => {
    service.on('GET', `${base}/orders/${OPERATOR.id}`, () =>
      json(503, { statusCode: 503, message: 'Service Unavailable', error: 'Service Unavailable' }),
    );
    render(<TradingPage agentId="agt_1" refreshKey={0} />);
    expect((await screen.findByRole('alert')).textContent).toBe('Service Unavailable');
    expect(ordersTable()).toBeNull();
  });
});
