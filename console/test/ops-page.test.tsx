// @vitest-environment happy-dom
/**
 * The service operator's page: the ops token checked at once (a wrong one said there, word for
 * word); then the kill switch per chain, operation families on and off, and actors each linked
 * to its inspector; "Forget token" asks for it again. No wallet session: the page has its own client.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KillSwitchStatus } from 'agent-runtime-sdk';
import { Toasts } from '../src/components/toasts.js';
import { setOpsAccess } from '../src/ops-access.js';
import { OpsPage } from '../src/pages/ops.page.js';
import { type FakeRequest, FakeService, json, refusal } from './support/fake-service.js';
import { dismissAllToasts } from './support/toasts.js';

const OPS = '/api/nest/ops';
const TOKEN = 'ops_token_value';
let service: FakeService;
let kill: KillSwitchStatus;
let disabledFamilies: string[];

beforeEach(() => {
  service = new FakeService();
  vi.stubGlobal('fetch', service.fetch);
  kill = {
    active: [],
    chains: [
      { chain: 'solana', active: false },
      { chain: 'base', active: false },
    ],
  };
  disabledFamilies = [];
  const authorized = (handler: (request: FakeRequest) => Response) => (request: FakeRequest) =>
    request.headers.get('authorization') === `Bearer ${TOKEN}` ? handler(request) : refusal(401, 'Unauthorized');
  const catalog = () => ({
    version: 3 + disabledFamilies.length,
    settings: { disabledFamilies, disabledOperations: [] },
    operations: [
      { name: 'trading_command', family: 'trading', minScope: 'trade', principals: ['agent'] },
      { name: 'trading_orders_list', family: 'trading', minScope: 'read', principals: ['agent'] },
      { name: 'ask_bot', family: 'chat', minScope: 'read', principals: ['agent'] },
    ],
  });
  service
    .on(
      'GET',
      `${OPS}/trading/kill-switch`,
      authorized(() => json(200, kill)),
    )
    .on(
      'PUT',
      `${OPS}/trading/kill-switch`,
      authorized((request) => {
        const { chain, active } = request.body as { chain: 'solana'; active: boolean };
        kill.chains = kill.chains.map((item) =>
          item.chain === chain ? { chain, active, source: 'operator', since: '2025-01-02T03:04:05.000Z' } : item,
        );
        kill.active = kill.chains.filter((item) => item.active).map((item) => item.chain);
        return json(200, kill);
      }),
    )
    .on(
      'GET',
      `${OPS}/catalog`,
      authorized(() => json(200, catalog())),
    )
    .on(
      'PUT',
      `${OPS}/catalog`,
      authorized((request) => {
        disabledFamilies = (request.body as { disabledFamilies: string[] }).disabledFamilies;
        return json(200, catalog());
      }),
    )
    .on(
      'GET',
      `${OPS}/actors`,
      authorized(() => json(200, { types: ['order', 'dca'] })),
    )
    .on(
      'GET',
      `${OPS}/actors/order`,
      authorized(() =>
        json(200, {
          items: [
            {
              type: 'order',
              id: 'ord_1',
              state: 'filled',
              status: 'done',
              context: {},
              version: 4,
              machineVersion: 2,
              updatedAt: '2025-01-02T03:04:05.000Z',
            },
          ],
        }),
      ),
    );
});
afterEach(() => {
  // The token is the tab's (shared by the ops pages): each test starts without it.
  setOpsAccess(undefined);
  dismissAllToasts();
  cleanup();
  vi.unstubAllGlobals();
});

function open() {
  render(
    <>
      <OpsPage />
      <Toasts />
    </>,
  );
}
async function enter(token: string) {
  fireEvent.input(screen.getByLabelText('Ops token'), { target: { value: token } });
  fireEvent.click(screen.getByRole('button', { name: 'Continue' }));
}

describe('OpsPage', () => {
  it('says a wrong token is refused, word for word, and stays on the token form', async () => {
    open();
    await enter('wrong');
    expect((await screen.findByRole('alert')).textContent).toBe('Unauthorized');
    expect(screen.queryByRole('heading', { name: 'Kill switch' })).toBeNull();
  });

  it('stops trading on a chain with the kill switch, and lets it resume', async () => {
    open();
    await enter(TOKEN);
    const stop = await screen.findByRole('button', { name: 'Kill switch solana: Stop trading' });
    expect(screen.queryByLabelText('Ops token')).toBeNull();
    fireEvent.click(stop);
    const off = await screen.findByRole('button', { name: 'Kill switch solana: Switch off' });
    expect(off.getAttribute('aria-pressed')).toBe('true');
    expect(service.calls('PUT', `${OPS}/trading/kill-switch`)[0]?.body).toEqual({ chain: 'solana', active: true });
    expect(screen.getByRole('status').textContent).toContain('Trading stopped on solana');
    expect(screen.getAllByText('trading stopped')).toHaveLength(1);
    fireEvent.click(off);
    await screen.findByRole('button', { name: 'Kill switch solana: Stop trading' });
    expect(screen.getByRole('status').textContent).toContain('Trading may resume on solana');
  });

  it('switches an operation family off for everyone', async () => {
    open();
    await enter(TOKEN);
    const trading = (await screen.findByRole('checkbox', { name: /^trading/ })) as HTMLInputElement;
    expect(trading.checked).toBe(true);
    expect(trading.parentElement?.textContent).toContain('(2 operations)');
    fireEvent.click(trading);
    await waitFor(() => expect((screen.getByRole('checkbox', { name: /^trading/ }) as HTMLInputElement).checked).toBe(false));
    expect(service.calls('PUT', `${OPS}/catalog`)[0]?.body).toEqual({ disabledFamilies: ['trading'], disabledOperations: [] });
    expect(screen.getByRole('status').textContent).toContain('trading off');
  });

  it('lists actors of a type, each a link to its inspector', async () => {
    open();
    await enter(TOKEN);
    await screen.findByRole('option', { name: 'order' });
    fireEvent.click(screen.getByRole('button', { name: 'List actors' }));
    const link = await screen.findByRole('link', { name: 'Inspect ord_1' });
    expect(link.getAttribute('href')).toBe('/ops/actors/order/ord_1');
  });

  it('forgets the token on request', async () => {
    open();
    await enter(TOKEN);
    fireEvent.click(await screen.findByRole('button', { name: 'Forget token' }));
    expect(screen.getByLabelText('Ops token')).toBeTruthy();
    expect(screen.queryByRole('heading', { name: 'Kill switch' })).toBeNull();
  });
});
