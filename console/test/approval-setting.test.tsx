// @vitest-environment happy-dom
/**
 * "Hold every order for my approval" holds DCA buys too: the line under the box says so before
 * the change (naming the active strategies it will stop) and after it, and once the hold is
 * lifted it names the strategies that still wait. The DCA page no longer shows a held
 * strategy's "autoApprove off" reason as current once the hold is lifted.
 */
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TradingDcaStrategiesListOutput } from 'agent-runtime-sdk';
import { ApprovalSetting } from '../src/components/approval-setting.js';
import { Toasts } from '../src/components/toasts.js';
import { DcaPage } from '../src/pages/dca.page.js';
import { type FakeService, json, OPERATOR, signedInService } from './support/fake-service.js';
import { dismissAllToasts } from './support/toasts.js';

type Strategy = TradingDcaStrategiesListOutput['items'][number];
const PROFILE = `/api/nest/trading/config/${OPERATOR.id}/default-order-profile`;
const STRATEGIES = `/api/nest/trading/strategies/${OPERATOR.id}`;
const HOLD_REASON = 'the order profile approves no trade automatically (autoApprove off)';
let service: FakeService;
let autoApprove: boolean;
let strategies: Strategy[];

const strategy = (name: string, status: Strategy['status'], fields: Partial<Strategy> = {}): Strategy => ({
  strategyId: `dca_${name}`,
  name,
  status,
  chain: 'solana',
  inputToken: 'USDC',
  outputToken: 'SOL',
  inputSymbol: 'USDC',
  outputSymbol: 'SOL',
  amount: '10',
  interval: 'every 1 hour',
  catchUp: false,
  buys: 0,
  failures: 0,
  failuresInRow: 0,
  skipped: 0,
  createdAt: '2025-01-02T03:04:05.000Z',
  updatedAt: '2025-01-02T03:04:05.000Z',
  ...fields,
});

beforeEach(async () => {
  service = await signedInService();
  autoApprove = true;
  strategies = [strategy('daily-sol', 'active'), strategy('weekly-sol', 'active')];
  service
    .on('GET', PROFILE, () => json(200, { autoApprove, approvalAboveUsd: null, slippageBps: 50, agentsMayApprove: false }))
    .on('PUT', PROFILE, (request) => {
      autoApprove = (request.body as { autoApprove: boolean }).autoApprove;
      return json(200, { autoApprove, approvalAboveUsd: null, slippageBps: 50, agentsMayApprove: false });
    })
    .on('GET', STRATEGIES, () => json(200, { items: strategies }))
    .on('GET', `/api/nest/trading/dca/stats/${OPERATOR.id}`, () =>
      json(200, {
        strategies: [],
        totals: { strategies: 0, buys: 0, skipped: 0, spentUsd: '0', valueUsd: '0', pnlUsd: '0' },
        asOf: '2025-01-02T04:00:00.000Z',
      }),
    );
});
afterEach(() => {
  dismissAllToasts();
  cleanup();
  vi.unstubAllGlobals();
});

describe('Hold every order and DCA strategies', () => {
  it('says before and after holding that the active DCA strategies stop at the next buy', async () => {
    render(
      <>
        <ApprovalSetting agentId="agt_1" />
        <Toasts />
      </>,
    );
    const box = (await screen.findByLabelText('Hold every order for my approval')) as HTMLInputElement;
    await screen.findByText('Holding also stops 2 DCA strategies at the next buy, until you approve each on the DCA page.');
    expect(box.getAttribute('aria-describedby')).toBe('hold-effect');
    fireEvent.click(box);
    await screen.findByText('2 DCA strategies stop at the next buy too, until you approve each on the DCA page.');
    expect(box.checked).toBe(true);
    expect(service.calls('PUT', PROFILE)[0]?.body).toMatchObject({ autoApprove: false });
  });

  it('lifting the hold says which DCA strategies still wait for approval', async () => {
    autoApprove = false;
    strategies = [strategy('daily-sol', 'pending_approval', { holdReason: HOLD_REASON })];
    render(
      <>
        <ApprovalSetting agentId="agt_1" />
        <Toasts />
      </>,
    );
    await screen.findByText('1 DCA strategy waits for your approval on the DCA page; lifting the hold does not restart it.');
    fireEvent.click(screen.getByLabelText('Hold every order for my approval'));
    await screen.findByText('1 DCA strategy waits for your approval on the DCA page, held earlier: lifting the hold did not restart it.');
  });

  it('the DCA page does not show the lifted hold as the reason a strategy waits', async () => {
    strategies = [strategy('daily-sol', 'pending_approval', { holdReason: HOLD_REASON })];
    render(<DcaPage agentId="agt_1" refreshKey={0} />);
    await screen.findByText('Held while every order waited for approval. That hold is lifted: approve the strategy to resume its buys.');
    expect(screen.queryByText(`Held: ${HOLD_REASON}`)).toBeNull();
  });

  it('while the hold is on, the DCA page gives the service reason as it is', async () => {
    autoApprove = false;
    strategies = [strategy('daily-sol', 'pending_approval', { holdReason: HOLD_REASON })];
    render(<DcaPage agentId="agt_1" refreshKey={0} />);
    await screen.findByText(`Held: ${HOLD_REASON}`);
  });
});
