// @vitest-environment happy-dom
/**
 * The portfolio's value chart beside the totals: a value held before any reading in the range
 * is drawn (never "No value recorded" beside $1,000), and a deposit from the faucet reads the
 * history again at once, whatever the range.
 */
import { cleanup, fireEvent, render, screen, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Toasts } from '../src/components/toasts.js';
import { PortfolioPage } from '../src/pages/portfolio.page.js';
import { type FakeService, json, OPERATOR, signedInService } from './support/fake-service.js';
import { dismissAllToasts } from './support/toasts.js';

const ME = `/api/nest/trading/positions/${OPERATOR.id}`;
const WALLET = { walletId: 'wal_1', chain: 'solana', address: 'So1ana1111', custodial: true, createdAt: '2026-11-27T09:00:00.000Z' };
let service: FakeService;
let value: string;

beforeEach(async () => {
  service = await signedInService();
  value = '0';
  const totals = () => ({ valueUsd: value, costBasisUsd: value, realizedPnlUsd: '0', unrealizedPnlUsd: '0' });
  service
    .on('GET', `${ME}/pnl`, () => json(200, { positions: [], totals: totals(), asOf: new Date().toISOString() }))
    .on('GET', `${ME}/history`, () => json(200, { points: [], intervalSeconds: 900 }))
    .on('GET', `/api/nest/trading/wallets/custodial/${OPERATOR.id}`, (request) =>
      request.query.get('chain') === 'evm'
        ? json(200, { chain: 'evm', exists: false, wallet: null })
        : json(200, { chain: 'solana', exists: true, wallet: WALLET }),
    )
    .on('GET', '/api/nest/trading/evm/status', () => json(200, { venue: 'paper', chains: [] }))
    .on('POST', `/api/nest/trading/paper/faucet/${OPERATOR.id}`, () => {
      value = '1000';
      return json(200, { chain: 'solana', token: 'USDC', symbol: 'USDC', credited: '1000', balance: '1000' });
    });
});
afterEach(() => {
  dismissAllToasts();
  cleanup();
  vi.unstubAllGlobals();
});

describe('PortfolioPage value chart', () => {
  it('draws the value held now when the range has no reading yet', async () => {
    value = '1000';
    render(<PortfolioPage agentId="agt_1" refreshKey={0} />);
    expect((await screen.findByTestId('total-value')).textContent).toBe('$1,000.00');
    await screen.findByRole('img', { name: /^Portfolio value over the last 7 days: \$1,000\.00/ });
    expect(screen.queryByText(/No value recorded/)).toBeNull();
  });

  it('says no value was recorded only when nothing is held, and reads the history again after a deposit', async () => {
    render(
      <>
        <PortfolioPage agentId="agt_1" refreshKey={0} />
        <Toasts />
      </>,
    );
    await screen.findByText(/No value recorded in the last 7 days/);
    const historyReads = service.calls('GET', `${ME}/history`).length;
    const wallet = await screen.findByRole('region', { name: 'Solana wallet' });
    await within(wallet).findByLabelText('Token');
    fireEvent.input(within(wallet).getByLabelText('Token'), { target: { value: 'USDC' } });
    fireEvent.input(within(wallet).getByLabelText('Amount'), { target: { value: '1000' } });
    fireEvent.click(within(wallet).getByRole('button', { name: 'Add test funds' }));
    await screen.findByRole('img', { name: /^Portfolio value over the last 7 days: \$1,000\.00/ });
    expect(screen.queryByText(/No value recorded/)).toBeNull();
    expect(service.calls('GET', `${ME}/history`).length).toBeGreaterThan(historyReads);
  });
});
