/** Loading, empty and error states, the same everywhere. */
import type { ComponentChildren } from 'preact';

export const Loading = ({ what }: { what: string }) => (
  <p class="muted" role="status" aria-live="polite">
    Loading {what}…
  </p>
);

export const Empty = ({ children }: { children: ComponentChildren }) => <p class="empty">{children}</p>;

export const ErrorText = ({ text }: { text: string | undefined }) =>
  text ? (
    <p class="error" role="alert">
      {text}
    </p>
  ) : null;
