/**
 * The key management flow: a new key's full secret, shown once in a modal that closes itself after 30 s.
 * The secret lives in this component's props only: never stored, never logged, gone when it closes.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { Modal } from './modal.js';

/** The auth and key errors: the UI's own error when a created or rotated key comes back without its secret. */
export const MISSING_SECRET = 'Backend did not return a one-time secret';

/** Whether an answer carries the one-time secret a new key must show. */
export const hasSecret = (secret: unknown): secret is string => typeof secret === 'string' && secret !== '';

/** The limits, "One-time key reveal": auto-dismisses after 30 s. */
const SECRET_REVEAL_MS = 30_000;

export function SecretModal({ secret, keyName, onClose }: { secret: string; keyName: string; onClose(): void }) {
  const [left, setLeft] = useState(Math.round(SECRET_REVEAL_MS / 1000));
  const [copied, setCopied] = useState(false);
  // The 30 s start when the secret shows, whatever the parent re-renders meanwhile.
  const closeRef = useRef(onClose);
  closeRef.current = onClose;

  useEffect(() => {
    const closeAt = Date.now() + SECRET_REVEAL_MS;
    const close = setTimeout(() => closeRef.current(), SECRET_REVEAL_MS);
    const tick = setInterval(() => setLeft(Math.max(0, Math.ceil((closeAt - Date.now()) / 1000))), 1000);
    return () => {
      clearTimeout(close);
      clearInterval(tick);
    };
  }, []);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      setCopied(true);
    } catch {
      // Clipboard access refused (permissions, insecure context): the secret stays selectable.
      setCopied(false);
    }
  };

  return (
    <Modal title="Your new key" labelId="secret-title" onClose={onClose}>
      <p>
        Copy the secret of <strong>{keyName}</strong> now. It is shown only this once: a lost secret cannot be recovered, revoke the key and
        create a new one.
      </p>
      <label>
        Secret
        <input class="mono secret" readOnly value={secret} data-autofocus onFocus={(event) => event.currentTarget.select()} />
      </label>
      <p class="muted" aria-live="off">
        This window closes by itself in <span data-testid="secret-countdown">{left}</span> s.
      </p>
      <div class="actions">
        <button type="button" onClick={copy}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" class="secondary" onClick={onClose}>
          Done
        </button>
      </div>
    </Modal>
  );
}
