// @vitest-environment happy-dom
/**
 * The command box: a command sent through the SDK to the command route; the reply,
 * the order and the safety checks it passed are shown, and a refusal reads the service's own
 * message word for word, with the check's code.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CommandBox } from '../src/components/command-box.js';
import { type FakeService, json, refusal, signedInService } from './support/fake-service.js';
import { order } from './support/order.fixture.js';

let service: FakeService;
beforeEach(async () => {
  service = await signedInService();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const send = (text: string) => {
  fireEvent.input(screen.getByLabelText('Trading command'), { target: { value: text } });
  fireEvent.click(screen.getByRole('button', { name: 'Send command' }));
};

describe('CommandBox', () => {
  it('sends the command for the agent and lists the safety checks the order passed', async () => {
    service.on('POST', '/api/nest/trading/command', () =>
      json(200, { success: true, reply: 'Swapped 10 USDC for 0.065 SOL.', intent: 'swap', order: order() }),
    );
    const onDone = vi.fn();
    render(<CommandBox agentId="agt_1" onDone={onDone} />);
    send('  swap 10 USDC to SOL ');

    const answer = await screen.findByTestId('command-answer');
    expect(within(answer).getByText('Swapped 10 USDC for 0.065 SOL.')).toBeTruthy();
    expect(within(answer).getByText(/10 USDC → 0.065 SOL/).textContent).toContain('filled');
    const checks = within(answer).getByRole('list', { name: 'Safety checks passed' });
    expect(
      within(checks)
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['✓ credential scope', '✓ trading enabled', '✓ kill switch', '✓ balance', '✓ risk policy']);
    expect(onDone).toHaveBeenCalledTimes(1);
    // What went over the wire: the trimmed command, for this agent, with the session's CSRF token.
    const [sent] = service.calls('POST', '/api/nest/trading/command');
    expect(sent?.body).toEqual({ message: 'swap 10 USDC to SOL', agentId: 'agt_1' });
    expect(sent?.headers.get('x-csrf-token')).toBe('csrf-token');
  });

  it("shows the service's refusal word for word, names the check's code, and shows no checks passed", async () => {
    service.on('POST', '/api/nest/trading/command', () =>
      refusal(400, 'Insufficient balance for requested swap amount', 'INSUFFICIENT_BALANCE'),
    );
    const onDone = vi.fn();
    render(<CommandBox agentId="agt_1" onDone={onDone} />);
    send('swap 100000 USDC to SOL');

    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toBe('Insufficient balance for requested swap amount');
    expect(screen.getByText('Refused by the safety checks (INSUFFICIENT_BALANCE); no order was placed.')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Safety checks passed' })).toBeNull();
    expect(onDone).not.toHaveBeenCalled();
  });

  it('shows a soft refusal (HTTP 200, success false) as a refusal too', async () => {
    service.on('POST', '/api/nest/trading/command', () =>
      json(200, {
        success: false,
        error: { code: 'TRADING_DISABLED', message: 'Trading bu bot icin kapali.', details: { retryable: false } },
        meta: { requestId: 'r', correlationId: 'c' },
      }),
    );
    render(<CommandBox agentId="agt_1" onDone={() => undefined} />);
    send('swap 10 USDC to SOL');
    expect((await screen.findByRole('alert')).textContent).toBe('Trading bu bot icin kapali.');
    expect(screen.getByText(/Refused by the safety checks \(TRADING_DISABLED\)/)).toBeTruthy();
  });

  it('cannot send an empty command, and says it is sending while it waits', async () => {
    const command = service.held('POST', '/api/nest/trading/command');
    render(<CommandBox agentId="agt_1" onDone={() => undefined} />);
    expect((screen.getByRole('button', { name: 'Send command' }) as HTMLButtonElement).disabled).toBe(true);
    send('orders pending');
    await command.arrived;
    expect((screen.getByRole('button', { name: 'Sending…' }) as HTMLButtonElement).disabled).toBe(true);
    command.answer(json(200, { success: true, reply: 'No pending orders.', intent: 'orders' }));
    await waitFor(() => expect(screen.getByText('No pending orders.')).toBeTruthy());
    expect(screen.getByRole('button', { name: 'Send command' })).toBeTruthy();
  });
});
