// @vitest-environment happy-dom
/**
 * Component tests of the console's key flow pieces (the key management flow), rendered in a DOM without a
 * service: the one-time secret modal closes itself after exactly 30 s and focuses the secret;
 * a key list renders its caption for screen readers.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SecretModal } from '../src/components/secret-modal.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  cleanup();
  vi.useRealTimers();
});

describe('SecretModal', () => {
  it('shows the secret once, counts down, and closes itself at 30 s, not before', async () => {
    const onClose = vi.fn();
    render(<SecretModal secret="mcpk_secret_value" keyName="runtime" onClose={onClose} />);
    expect(screen.getByRole('dialog', { name: 'Your new key' })).toBeTruthy();
    expect((screen.getByLabelText('Secret') as HTMLInputElement).value).toBe('mcpk_secret_value');
    expect(screen.getByTestId('secret-countdown').textContent).toBe('30');
    await act(() => {
      vi.advanceTimersByTime(29_999);
    });
    expect(onClose).not.toHaveBeenCalled();
    expect(screen.getByTestId('secret-countdown').textContent).toBe('1');
    await act(() => {
      vi.advanceTimersByTime(1);
    });
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it('closes on Escape as any dialog does', () => {
    const onClose = vi.fn();
    render(<SecretModal secret="mcpk_x" keyName="k" onClose={onClose} />);
    fireEvent.keyDown(screen.getByRole('dialog'), { key: 'Escape' });
    expect(onClose).toHaveBeenCalled();
  });
});
