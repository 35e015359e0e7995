// @vitest-environment happy-dom
/**
 * The control plane: claim the agent with the wallet signed in with; cap the scope,
 * rotate the keys and change withdrawals, each only after the authenticator code (step-up),
 * whose single-use token the change then carries; rotated keys' secrets shown once each.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ControlPlane } from '../src/components/control-plane.js';
import { Toasts } from '../src/components/toasts.js';
import { type FakeService, json, OPERATOR, refusal, signedInService } from './support/fake-service.js';
import { dismissAllToasts } from './support/toasts.js';

const AGENT = '/api/nest/agents/agt_1';
let service: FakeService;
let stepUps: number;

beforeEach(async () => {
  service = await signedInService();
  stepUps = 0;
  service
    .on('GET', `${AGENT}/control/withdraw`, () => json(200, { enabled: false, allowlist: [], requireStepUp: true }))
    .on('POST', `${AGENT}/control/mcp/step-up`, (request) =>
      (request.body as { code: string }).code === '123456'
        ? json(201, { stepUpToken: `sut_${++stepUps}`, expiresAt: '2025-01-02T03:09:05.000Z' })
        : refusal(400, 'Verification failed'),
    );
});
afterEach(() => {
  dismissAllToasts();
  cleanup();
  vi.unstubAllGlobals();
});

function open(onKeysRotated = vi.fn()) {
  render(
    <>
      <ControlPlane agentId="agt_1" onKeysRotated={onKeysRotated} />
      <Toasts />
    </>,
  );
  return onKeysRotated;
}

/** Types `code` into the step-up dialog and submits it with `label`. */
async function stepUp(label: string, code = '123456') {
  const dialog = await screen.findByRole('dialog', { name: 'Confirm with your authenticator' });
  fireEvent.input(within(dialog).getByLabelText('Authenticator code'), { target: { value: code } });
  fireEvent.click(within(dialog).getByRole('button', { name: label }));
  return dialog;
}

/** The browser's Solana wallet, answering as `address`. */
function wallet(address: string) {
  const signMessage = vi.fn(async (_message: Uint8Array) => ({ signature: new Uint8Array(64).fill(7) }));
  vi.stubGlobal('solana', {
    publicKey: { toString: () => address },
    connect: async () => ({ publicKey: { toString: () => address } }),
    signMessage,
  });
  return signMessage;
}

describe('ControlPlane: claim', () => {
  it('claims the agent with a message naming it, signed by the wallet signed in with', async () => {
    const sign = wallet(OPERATOR.walletAddress);
    service.on('POST', `${AGENT}/control/claim`, () =>
      json(200, { agentId: 'agt_1', claimed: true, claimedBy: OPERATOR.id, claimedAt: '2025-01-02T03:04:05.000Z' }),
    );
    open();
    fireEvent.click(screen.getByRole('button', { name: 'Claim with my wallet' }));
    const status = await screen.findByTestId('claim-status');
    expect(status.textContent).toBe(`Claimed by you on ${new Date('2025-01-02T03:04:05.000Z').toLocaleString()}.`);
    const body = service.calls('POST', `${AGENT}/control/claim`)[0]?.body as { message: string; signature: string };
    expect(body.message).toContain('Claim agent agt_1');
    expect(new TextDecoder().decode(sign.mock.calls[0]?.[0])).toBe(body.message);
  });

  it('refuses to claim with another wallet than the one signed in with, before asking the service', async () => {
    wallet('Other111111111111111111111111111111111111111');
    open();
    fireEvent.click(screen.getByRole('button', { name: 'Claim with my wallet' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      `Your wallet now uses Other111111111111111111111111111111111111111; switch it back to ${OPERATOR.walletAddress}, the one you signed in with.`,
    );
    expect(service.calls('POST', `${AGENT}/control/claim`)).toEqual([]);
  });

  it("shows the service's refusal word for word", async () => {
    wallet(OPERATOR.walletAddress);
    service.on('POST', `${AGENT}/control/claim`, () => refusal(409, 'Agent already claimed'));
    open();
    fireEvent.click(screen.getByRole('button', { name: 'Claim with my wallet' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Agent already claimed');
    expect(screen.queryByTestId('claim-status')).toBeNull();
  });
});

describe('ControlPlane: changes behind step-up', () => {
  it('caps the scope only after the code, carrying the step-up token', async () => {
    service.on('PUT', `${AGENT}/control/scopes`, (request) => json(200, { agentId: 'agt_1', ...(request.body as object) }));
    open();
    fireEvent.change(screen.getByLabelText('Highest scope'), { target: { value: 'read' } });
    fireEvent.click(screen.getByRole('button', { name: 'Apply scope cap' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Every key and identity token of this agent will act with at most "read", at once.')).toBeTruthy();
    expect(service.calls('PUT', `${AGENT}/control/scopes`)).toEqual([]);
    await stepUp('Verify and apply');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const [put] = service.calls('PUT', `${AGENT}/control/scopes`);
    expect(put?.body).toEqual({ maxScope: 'read' });
    expect(put?.headers.get('x-step-up-token')).toBe('sut_1');
    expect(screen.getByRole('status').textContent).toContain('Credentials now act with at most read');
  });

  it('changes nothing on a wrong code: `Verification failed`, the dialog stays; Cancel leaves', async () => {
    open();
    fireEvent.click(screen.getByRole('button', { name: 'Apply scope cap' }));
    const dialog = await stepUp('Verify and apply', '000000');
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Verification failed');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(service.calls('PUT', `${AGENT}/control/scopes`)).toEqual([]);
  });

  it('rotates the keys and shows each new secret once, one after the other', async () => {
    const key = (name: string, secret: string) => ({
      keyId: `key_${name}`,
      name,
      prefix: secret.slice(0, 13),
      maskedSecret: `${secret.slice(0, 13)}…`,
      scope: 'trade',
      createdAt: '2025-01-02T03:04:05.000Z',
      expiresAt: '2025-04-02T03:04:05.000Z',
      status: 'active',
      secret,
    });
    service.on('POST', `${AGENT}/control/mcp/keys/rotate`, () =>
      json(200, { keys: [key('runtime', 'mcpk_first_secret'), key('backup', 'mcpk_second_secret')] }),
    );
    const onKeysRotated = open();
    fireEvent.input(screen.getByLabelText('Old keys keep working for (seconds)'), { target: { value: '60' } });
    fireEvent.click(screen.getByRole('button', { name: 'Rotate keys' }));
    await stepUp('Verify and rotate');
    const first = await screen.findByRole('dialog', { name: 'Your new key' });
    expect((within(first).getByLabelText('Secret') as HTMLInputElement).value).toBe('mcpk_first_secret');
    const [rotate] = service.calls('POST', `${AGENT}/control/mcp/keys/rotate`);
    expect(rotate?.body).toEqual({ graceSeconds: 60 });
    expect(rotate?.headers.get('x-step-up-token')).toBe('sut_1');
    expect(onKeysRotated).toHaveBeenCalledTimes(1);
    expect(screen.getByRole('status').textContent).toContain('2 keys rotated');

    fireEvent.keyDown(first, { key: 'Escape' });
    const second = await screen.findByRole('dialog', { name: 'Your new key' });
    await waitFor(() => expect((within(second).getByLabelText('Secret') as HTMLInputElement).value).toBe('mcpk_second_secret'));
    fireEvent.keyDown(second, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('a rotated key without its secret is said, once, and the others still show (no second rotation asked)', async () => {
    const rotated = (name: string, secret?: string) => ({
      keyId: `key_${name}`,
      name,
      scope: 'trade',
      status: 'active',
      ...(secret ? { secret } : {}),
    });
    service.on('POST', `${AGENT}/control/mcp/keys/rotate`, () => json(200, { keys: [rotated('runtime'), rotated('backup', 'mcpk_b')] }));
    open();
    fireEvent.click(screen.getByRole('button', { name: 'Rotate keys' }));
    await stepUp('Verify and rotate');
    const shown = await screen.findByRole('dialog', { name: 'Your new key' });
    expect((within(shown).getByLabelText('Secret') as HTMLInputElement).value).toBe('mcpk_b');
    expect(screen.getByRole('status').textContent).toContain('Backend did not return a one-time secret');
    expect(service.calls('POST', `${AGENT}/control/mcp/keys/rotate`)).toHaveLength(1);
  });

  it('shows the withdrawal settings and saves changes after the code', async () => {
    let saved: Record<string, unknown> | undefined;
    service.on('PUT', `${AGENT}/control/withdraw`, (request) => {
      saved = request.body as Record<string, unknown>;
      return json(200, { ...saved, updatedAt: '2025-01-02T03:05:00.000Z' });
    });
    service.on('GET', `${AGENT}/control/withdraw`, () =>
      json(200, saved ? { ...saved, updatedAt: '2025-01-02T03:05:00.000Z' } : { enabled: false, allowlist: [], requireStepUp: true }),
    );
    open();
    const may = (await screen.findByLabelText('The agent may withdraw')) as HTMLInputElement;
    expect(may.checked).toBe(false);
    expect((screen.getByLabelText('Each withdrawal needs a manage key and a step-up code') as HTMLInputElement).checked).toBe(true);
    fireEvent.click(may);
    fireEvent.input(screen.getByLabelText('Allowed recipients (one per line; none: any)'), {
      target: { value: '0x1111111111111111111111111111111111111111\n  Fake1111111111111111111111111111111111111111 \n' },
    });
    fireEvent.input(screen.getByLabelText('Daily cap in USD (empty: none)'), { target: { value: '250' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save withdrawal settings' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('The agent will be able to withdraw with these limits.')).toBeTruthy();
    await stepUp('Verify and save');
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Withdrawal settings saved'));
    expect(saved).toEqual({
      enabled: true,
      allowlist: ['0x1111111111111111111111111111111111111111', 'Fake1111111111111111111111111111111111111111'],
      requireStepUp: true,
      dailyCapUsd: 250,
    });
    expect(service.calls('PUT', `${AGENT}/control/withdraw`)[0]?.headers.get('x-step-up-token')).toBe('sut_1');
    // Read again from the service: the form shows what it now holds.
    await waitFor(() => expect(service.calls('GET', `${AGENT}/control/withdraw`)).toHaveLength(2));
    await waitFor(() => expect((screen.getByLabelText('Daily cap in USD (empty: none)') as HTMLInputElement).value).toBe('250'));
  });

  it('shows why the withdrawal settings cannot be read', async () => {
    service.on('GET', `${AGENT}/control/withdraw`, () => refusal(404, 'Agent not found'));
    open();
    expect((await screen.findByRole('alert')).textContent).toBe('Agent not found');
    expect(screen.queryByRole('button', { name: 'Save withdrawal settings' })).toBeNull();
  });
});
