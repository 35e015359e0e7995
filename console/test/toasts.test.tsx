// @vitest-environment happy-dom
/**
 * Notices: announced politely (role=status), each with a close button, gone by themselves
 * (6 s, errors 10 s; on a phone 4 s and 8 s, the newest two only), held while pointed at or
 * focused; on a phone the strip sits at the edge away from the control just used.
 */
import { act, cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Toasts } from '../src/components/toasts.js';
import { toast } from '../src/toast.js';
import { dismissAllToasts } from './support/toasts.js';

/** Makes the screen a phone's (the console's 600 px breakpoint) or a desktop's. */
function screenWidth(narrow: boolean): void {
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: narrow && query === '(max-width: 600px)', media: query }));
}

beforeEach(() => {
  vi.useFakeTimers();
  screenWidth(false);
});
afterEach(() => {
  dismissAllToasts();
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

const notices = () => Array.from(screen.getByRole('status').querySelectorAll('.toast-text'), (item) => item.textContent);
const later = (ms: number) =>
  act(() => {
    vi.advanceTimersByTime(ms);
  });

describe('Toasts', () => {
  it('announces a notice in a polite live region and takes it away after 6 s', async () => {
    render(<Toasts />);
    const region = screen.getByRole('status');
    expect(region.getAttribute('aria-live')).toBe('polite');
    await act(() => toast('Created agent Alpha'));
    expect(notices()).toEqual(['Created agent Alpha']);
    await later(5_999);
    expect(notices()).toEqual(['Created agent Alpha']);
    await later(1);
    expect(notices()).toEqual([]);
  });

  it('keeps errors 10 s, and the newest four', async () => {
    render(<Toasts />);
    await act(() => toast('Trading kill switch is active for chain: solana', 'error'));
    await later(6_000);
    expect(notices()).toEqual(['Trading kill switch is active for chain: solana']);
    await later(4_000);
    expect(notices()).toEqual([]);
    for (const n of [1, 2, 3, 4, 5]) await act(() => toast(`notice ${n}`));
    expect(notices()).toEqual(['notice 2', 'notice 3', 'notice 4', 'notice 5']);
  });

  it('closes a notice from its button, by keyboard as by pointer', async () => {
    render(<Toasts />);
    await act(() => {
      toast('Alpha: paused');
      toast('Beta: paused');
    });
    const close = screen.getByRole('button', { name: 'Dismiss: Alpha: paused' });
    close.focus();
    expect(document.activeElement).toBe(close);
    await act(() => {
      fireEvent.click(close);
    });
    expect(notices()).toEqual(['Beta: paused']);
  });

  it('holds a notice while it is pointed at or focused, then gives it the time it had left', async () => {
    render(<Toasts />);
    await act(() => toast('Withdrawal settings saved'));
    await later(5_000);
    const notice = screen.getByText('Withdrawal settings saved').parentElement!;
    await act(() => {
      fireEvent.mouseEnter(notice);
    });
    await later(30_000);
    expect(notices()).toEqual(['Withdrawal settings saved']);
    await act(() => {
      fireEvent.focusIn(screen.getByRole('button', { name: 'Dismiss: Withdrawal settings saved' }));
    });
    await act(() => {
      fireEvent.mouseLeave(notice);
    });
    await later(30_000);
    expect(notices()).toEqual(['Withdrawal settings saved']);
    await act(() => {
      fireEvent.focusOut(screen.getByRole('button', { name: 'Dismiss: Withdrawal settings saved' }));
    });
    await later(999);
    expect(notices()).toEqual(['Withdrawal settings saved']);
    await later(1);
    expect(notices()).toEqual([]);
  });

  describe('on a phone', () => {
    beforeEach(() => screenWidth(true));

    it('keeps notices 4 s (errors 8 s) and only the newest two', async () => {
      render(<Toasts />);
      await act(() => {
        toast('one');
        toast('two');
        toast('three', 'error');
      });
      expect(notices()).toEqual(['two', 'three']);
      await later(4_000);
      expect(notices()).toEqual(['three']);
      await later(4_000);
      expect(notices()).toEqual([]);
    });

    it('puts the strip at the edge away from the control just used', async () => {
      vi.stubGlobal('innerHeight', 800);
      render(
        <>
          <button type="button">Pause</button>
          <Toasts />
        </>,
      );
      const control = screen.getByRole('button', { name: 'Pause' });
      const at = (top: number) => (control.getBoundingClientRect = () => ({ top, bottom: top + 40 }) as DOMRect);
      control.focus();
      at(700);
      await act(() => toast('Alpha: paused'));
      expect(screen.getByRole('status').classList.contains('at-top')).toBe(true);
      // The edge stays while the strip shows: notices do not jump around.
      at(100);
      await act(() => toast('Beta: paused'));
      expect(screen.getByRole('status').classList.contains('at-top')).toBe(true);
      await later(4_000);
      await act(() => toast('Gamma: paused'));
      expect(screen.getByRole('status').classList.contains('at-bottom')).toBe(true);
    });
  });
});
