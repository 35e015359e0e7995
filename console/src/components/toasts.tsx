/** The notices (toast.ts) in a polite live region: screen readers announce them, nothing steals focus. */
import { useEffect, useState } from 'preact/hooks';
import { notePress, onToasts, type Toast, toastsNow } from '../toast.js';
import { ToastItem } from './toast-item.js';

export function Toasts() {
  const [toasts, setToasts] = useState<Toast[]>(toastsNow().toasts);
  useEffect(() => {
    const unsubscribe = onToasts(setToasts);
    document.addEventListener('pointerdown', notePress, true);
    return () => {
      unsubscribe();
      document.removeEventListener('pointerdown', notePress, true);
    };
  }, []);
  const { edge, topOffsetPx } = toastsNow();
  return (
    <div class={`toasts at-${edge}`} style={{ '--toast-top': `${topOffsetPx}px` }} role="status" aria-live="polite">
      {toasts.map((item) => (
        <ToastItem key={item.id} item={item} />
      ))}
    </div>
  );
}
