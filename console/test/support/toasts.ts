/** Notices live in one module for the whole page: a test closes those it left, as a person would, so the next starts with none. */
import { fireEvent, screen } from '@testing-library/preact';

export function dismissAllToasts(): void {
  for (const close of screen.queryAllByRole('button', { name: /^Dismiss: / })) fireEvent.click(close);
}
