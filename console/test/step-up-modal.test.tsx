// @vitest-environment happy-dom
/**
 * Step-up (interface 4.8): the authenticator's 6-digit code exchanged for a single-use token
 * the action then carries; a wrong code reads `Verification failed` (the service's 400, word
 * for word) with the field cleared for another try; Cancel and Escape leave without acting.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { client } from '../src/api.js';
import { StepUpModal } from '../src/components/step-up-modal.js';
import { type FakeService, json, refusal, signedInService } from './support/fake-service.js';

let service: FakeService;
beforeEach(async () => {
  service = await signedInService();
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const STEP_UP = '/api/nest/agents/agt_1/control/mcp/step-up';

function open(onVerified: (token: string) => Promise<void> = vi.fn(async (_token: string) => undefined), onCancel = vi.fn()) {
  render(
    <StepUpModal
      stepUp={(code) => client.agents.stepUp('agt_1', { code })}
      explanation="Every key of this agent will act with at most read."
      submitLabel="Verify and apply"
      onCancel={onCancel}
      onVerified={onVerified}
    />,
  );
  return { onVerified, onCancel };
}

const code = () => screen.getByLabelText('Authenticator code') as HTMLInputElement;
const submit = () => screen.getByRole('button', { name: 'Verify and apply' }) as HTMLButtonElement;
const type = (value: string) => fireEvent.input(code(), { target: { value } });

describe('StepUpModal', () => {
  it('is a dialog that says what the code confirms, with the code field focused', () => {
    open();
    expect(screen.getByRole('dialog', { name: 'Confirm with your authenticator' })).toBeTruthy();
    expect(screen.getByText('Every key of this agent will act with at most read.')).toBeTruthy();
    expect(document.activeElement).toBe(code());
  });

  it('takes only a full 6-digit code, then hands the step-up token to the action', async () => {
    service.on('POST', STEP_UP, () => json(201, { stepUpToken: 'sut_once', expiresAt: '2025-01-02T03:09:05.000Z' }));
    const { onVerified } = open();
    type('12345');
    expect(submit().disabled).toBe(true);
    type('123456');
    expect(submit().disabled).toBe(false);
    fireEvent.click(submit());
    await waitFor(() => expect(onVerified).toHaveBeenCalledWith('sut_once'));
    expect(service.calls('POST', STEP_UP)[0]?.body).toEqual({ code: '123456' });
  });

  it('reads `Verification failed` on a wrong code and clears the field; the action does not run', async () => {
    service.on('POST', STEP_UP, () => refusal(400, 'Verification failed'));
    const { onVerified } = open();
    type('000000');
    fireEvent.click(submit());
    expect((await screen.findByRole('alert')).textContent).toBe('Verification failed');
    expect(code().value).toBe('');
    expect(onVerified).not.toHaveBeenCalled();
  });

  it("shows the action's own refusal after a good code", async () => {
    service.on('POST', STEP_UP, () => json(201, { stepUpToken: 'sut_once', expiresAt: '2025-01-02T03:09:05.000Z' }));
    open(async () => {
      throw new Error('Agent already claimed');
    });
    type('123456');
    fireEvent.click(submit());
    expect((await screen.findByRole('alert')).textContent).toBe('Agent already claimed');
  });

  it('leaves with Cancel or Escape without asking the service', () => {
    const { onCancel } = open();
    fireEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(onCancel).toHaveBeenCalledTimes(2);
    expect(service.calls('POST', STEP_UP)).toEqual([]);
  });
});
