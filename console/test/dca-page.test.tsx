// @vitest-environment happy-dom
/**
 * DCA strategies: create one (the list then shows it, in words), pause and resume it, delete it
 * only after confirmation; what it spent against what it is worth; a refusal word for word.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { TradingDcaStrategiesListOutput } from 'agent-runtime-sdk';
import { Toasts } from '../src/components/toasts.js';
import { DcaPage } from '../src/pages/dca.page.js';
import { type FakeService, json, OPERATOR, signedInService } from './support/fake-service.js';
import { dismissAllToasts } from './support/toasts.js';

type Strategy = TradingDcaStrategiesListOutput['items'][number];
const BASE = `/api/nest/trading/strategies/${OPERATOR.id}`;
const DCA = `/api/nest/trading/dca`;
let service: FakeService;
let strategies: Strategy[];

function strategy(fields: Partial<Strategy> & { name: string }): Strategy {
  return {
    strategyId: `dca_${fields.name}`,
    status: 'active',
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
  };
}

beforeEach(async () => {
  service = await signedInService();
  strategies = [];
  const named = (name: unknown) => strategies.find((item) => item.name === name)!;
  service
    .on('GET', BASE, () => json(200, { items: strategies }))
    .on('GET', `${DCA}/stats/${OPERATOR.id}`, () =>
      json(200, {
        strategies: strategies.map((item) => ({
          name: item.name,
          status: item.status,
          buys: 3,
          failures: 1,
          skipped: 0,
          spent: '30',
          acquired: '0.2',
          inputSymbol: 'USDC',
          outputSymbol: 'SOL',
          averagePrice: '150',
          averagePriceUsd: '150',
          currentPriceUsd: '160',
          spentUsd: '30',
          valueUsd: '32',
          pnlUsd: '2',
          nextRun: null,
        })),
        totals: { strategies: strategies.length, buys: 3 * strategies.length, skipped: 0, spentUsd: '30', valueUsd: '32', pnlUsd: '2' },
        asOf: '2025-01-02T04:00:00.000Z',
      }),
    )
    .on('POST', BASE, (request) => {
      const created = strategy(request.body as Strategy);
      strategies.push(created);
      return json(201, created);
    })
    .on('POST', `${DCA}/pause/${OPERATOR.id}`, (request) => {
      named((request.body as { name: string }).name).status = 'paused';
      return json(200, { paused: 1 });
    })
    .on('POST', `${DCA}/resume/${OPERATOR.id}`, (request) => {
      named((request.body as { name: string }).name).status = 'active';
      return json(200, { resumed: 1 });
    })
    .on('DELETE', /^\/api\/nest\/trading\/strategies\/usr_operator\/([^/]+)$/, (_request, [, name]) => {
      named(name).status = 'deleted';
      return json(200, { name, deleted: true });
    });
});
afterEach(() => {
  dismissAllToasts();
  cleanup();
  vi.unstubAllGlobals();
});

function open() {
  render(
    <>
      <DcaPage agentId="agt_1" refreshKey={0} />
      <Toasts />
    </>,
  );
}
const card = (name: string) => screen.getByRole('article', { name });

describe('DcaPage', () => {
  it('creates a strategy and lists it in words, with what it spent and is worth', async () => {
    open();
    await screen.findByText('No DCA strategy yet. Create one above.');
    fireEvent.input(screen.getByLabelText('Strategy name'), { target: { value: 'weekly-sol' } });
    fireEvent.input(screen.getByLabelText('Interval'), { target: { value: '0 9 * * 1' } });
    fireEvent.input(screen.getByLabelText('Stop after (buys, optional)'), { target: { value: '12' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create strategy' }));
    const created = await screen.findByRole('article', { name: 'weekly-sol' });
    expect(service.calls('POST', BASE)[0]?.body).toEqual({
      name: 'weekly-sol',
      inputToken: 'USDC',
      outputToken: 'SOL',
      amount: '10',
      interval: '0 9 * * 1',
      chain: 'solana',
      maxBuys: 12,
      agentId: 'agt_1',
    });
    expect(created.textContent).toContain('Buys SOL with 10 USDC on the schedule "0 9 * * 1" (cron, UTC) on solana. At most 12 buys.');
    await waitFor(() => expect(within(created).getByText('3 (1 failed)')).toBeTruthy());
    expect(within(created).getByText('$160.00')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toContain('Strategy weekly-sol created (active)');
  });

  it("shows the service's refusal to create word for word", async () => {
    service.on('POST', BASE, () =>
      json(400, { statusCode: 400, message: ['interval must be at least a minute apart'], error: 'Bad Request' }),
    );
    open();
    fireEvent.input(await screen.findByLabelText('Strategy name'), { target: { value: 'fast' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create strategy' }));
    expect((await screen.findByRole('alert')).textContent).toBe('interval must be at least a minute apart');
  });

  it('pauses and resumes a strategy, its state following the service', async () => {
    strategies.push(strategy({ name: 'daily-sol', interval: 'daily' }));
    open();
    fireEvent.click(await screen.findByRole('button', { name: 'Pause daily-sol' }));
    await waitFor(() => expect(within(card('daily-sol')).getByText('paused')).toBeTruthy());
    expect(service.calls('POST', `${DCA}/pause/${OPERATOR.id}`)[0]?.body).toEqual({ name: 'daily-sol', agentId: 'agt_1' });
    fireEvent.click(screen.getByRole('button', { name: 'Resume daily-sol' }));
    await waitFor(() => expect(within(card('daily-sol')).getByText('active')).toBeTruthy());
  });

  it('deletes a strategy only after confirmation', async () => {
    strategies.push(strategy({ name: 'daily-sol', interval: 'daily' }));
    open();
    fireEvent.click(await screen.findByRole('button', { name: 'Delete daily-sol' }));
    fireEvent.click(within(screen.getByRole('dialog', { name: 'Delete daily-sol?' })).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(service.calls('DELETE', `${BASE}/daily-sol`)).toEqual([]);
    fireEvent.click(screen.getByRole('button', { name: 'Delete daily-sol' }));
    fireEvent.click(within(screen.getByRole('dialog', { name: 'Delete daily-sol?' })).getByRole('button', { name: 'Delete strategy' }));
    await screen.findByText('No DCA strategy yet. Create one above.');
    expect(screen.queryByRole('article', { name: 'daily-sol' })).toBeNull();
  });
});
