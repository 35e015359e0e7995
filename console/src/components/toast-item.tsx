/** One notice: its close button reachable by keyboard; it stays while the pointer or focus is on it. */
import { useRef } from 'preact/hooks';
import { arm, dismiss, hold, type Toast } from '../toast.js';

export function ToastItem({ item }: { item: Toast }) {
  const box = useRef<HTMLDivElement>(null);
  const hovered = useRef(false);
  const focused = useRef(false);
  const update = () => (hovered.current || focused.current ? hold(item.id) : arm(item.id));
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: pointer and focus only pause the notice's clock; its one control is the close button.
    <div
      ref={box}
      class={`toast ${item.tone}`}
      onMouseEnter={() => {
        hovered.current = true;
        update();
      }}
      onMouseLeave={() => {
        hovered.current = false;
        update();
      }}
      onFocusIn={() => {
        focused.current = true;
        update();
      }}
      onFocusOut={(event) => {
        focused.current = box.current?.contains(event.relatedTarget as Node | null) ?? false;
        update();
      }}
    >
      <span class="toast-text">{item.text}</span>
      <button type="button" class="toast-close" aria-label={`Dismiss: ${item.text}`} onClick={() => dismiss(item.id)}>
        <span aria-hidden="true">×</span>
      </button>
    </div>
  );
}
