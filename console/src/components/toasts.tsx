/** Short notices in a polite live region: screen readers announce them, nothing steals focus. */
import { useEffect, useState } from 'preact/hooks';

type Tone = 'info' | 'error';
interface Toast {
  id: number;
  text: string;
  tone: Tone;
}

let nextId = 1;
const subscribers = new Set<(toasts: Toast[]) => void>();
let current: Toast[] = [];

function publish(next: Toast[]): void {
  current = next;
  for (const subscriber of subscribers) subscriber(current);
}

/** Shows `text` for 6 s (errors 10 s: they take longer to read). */
export function toast(text: string, tone: Tone = 'info'): void {
  const id = nextId++;
  publish([...current, { id, text, tone }].slice(-4));
  setTimeout(() => publish(current.filter((item) => item.id !== id)), tone === 'error' ? 10_000 : 6_000);
}

export function Toasts() {
  const [toasts, setToasts] = useState<Toast[]>(current);
  useEffect(() => {
    subscribers.add(setToasts);
    return () => void subscribers.delete(setToasts);
  }, []);
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.map((item) => (
        <div key={item.id} class={`toast ${item.tone}`}>
          {item.text}
        </div>
      ))}
    </div>
  );
}
