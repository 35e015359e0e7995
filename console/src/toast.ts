/**
 * Short notices in a polite live region: screen readers announce them, nothing steals focus.
 * Each has a close button (reachable by keyboard) and stays while the pointer or focus is on it.
 * On a phone they must not sit over the page (DECISIONS, operator console): a compact strip at
 * the screen's edge away from the control just used, the newest two only, gone sooner.
 * This is the notices' state; components/toasts.tsx shows it.
 */
type Tone = 'info' | 'error';
/** The screen edge the notices sit at on a phone. */
type Edge = 'top' | 'bottom';
export interface Toast {
  id: number;
  text: string;
  tone: Tone;
}

/** The console's phone layout (styles.css uses the same width). */
const NARROW = '(max-width: 600px)';

let nextId = 1;
const subscribers = new Set<(toasts: Toast[]) => void>();
let current: Toast[] = [];
let edge: Edge = 'bottom';
/** On a phone, how far down the top strip starts: below the navigation on screen, which it must not cover. */
let topOffsetPx = 0;
/** Each notice's expiry: its timer, or the time it has left while held. */
const expiries = new Map<number, { timer: ReturnType<typeof setTimeout> | undefined; leftMs: number; since: number }>();

function publish(next: Toast[]): void {
  current = next;
  for (const subscriber of subscribers) subscriber(current);
}

const isNarrow = (): boolean => typeof window.matchMedia === 'function' && window.matchMedia(NARROW).matches;

/** How long a notice stays: errors longer (they take longer to read), on a phone shorter (it covers more of the screen). */
function lifetimeMs(tone: Tone, narrow: boolean): number {
  if (narrow) return tone === 'error' ? 8_000 : 4_000;
  return tone === 'error' ? 10_000 : 6_000;
}

/** Where on the screen the person last pressed (a tap or a click), in viewport pixels. */
let lastPress: number | undefined;
export const notePress = (event: PointerEvent) => {
  lastPress = event.clientY;
};

/**
 * The edge away from the control just used: the focused one (a keyboard user's), else where the
 * last press was (a control busy with its action is disabled and loses focus). A control in the
 * lower half of the screen gets its notices at the top, so they never cover what was touched.
 */
function edgeAwayFromUse(): Edge {
  const focused = document.activeElement;
  let y = lastPress;
  if (focused instanceof HTMLElement && focused !== document.body) {
    const { top, bottom } = focused.getBoundingClientRect();
    y = (top + bottom) / 2;
  }
  return y !== undefined && y > window.innerHeight / 2 ? 'top' : 'bottom';
}

/** The bottom of the navigation bars showing in the upper half of the screen (0 when scrolled away). */
function navigationBottom(): number {
  let bottom = 0;
  for (const bar of document.querySelectorAll('header, nav')) {
    const box = bar.getBoundingClientRect();
    if (box.bottom > 0 && box.top < window.innerHeight / 2) bottom = Math.max(bottom, box.bottom);
  }
  return Math.ceil(bottom);
}

/** Shows `text` for a while (see `lifetimeMs`); the newest four are kept, two on a phone. */
export function toast(text: string, tone: Tone = 'info'): void {
  const narrow = isNarrow();
  // The edge is chosen when the strip appears and kept while it shows: notices do not jump around.
  if (current.length === 0) {
    edge = edgeAwayFromUse();
    topOffsetPx = edge === 'top' ? navigationBottom() : 0;
  }
  const id = nextId++;
  const kept = [...current, { id, text, tone }].slice(narrow ? -2 : -4);
  for (const gone of current.filter((item) => !kept.includes(item))) forget(gone.id);
  expiries.set(id, { timer: undefined, leftMs: lifetimeMs(tone, narrow), since: 0 });
  arm(id);
  publish(kept);
}

export function arm(id: number): void {
  const expiry = expiries.get(id);
  if (!expiry || expiry.timer !== undefined) return;
  expiry.since = Date.now();
  expiry.timer = setTimeout(() => dismiss(id), expiry.leftMs);
}

/** Stops the clock of a notice someone is reading or about to close. */
export function hold(id: number): void {
  const expiry = expiries.get(id);
  if (!expiry || expiry.timer === undefined) return;
  clearTimeout(expiry.timer);
  expiry.timer = undefined;
  expiry.leftMs = Math.max(0, expiry.leftMs - (Date.now() - expiry.since));
}

function forget(id: number): void {
  clearTimeout(expiries.get(id)?.timer);
  expiries.delete(id);
}

export function dismiss(id: number): void {
  forget(id);
  publish(current.filter((item) => item.id !== id));
}

/** Follows the notices shown; answers the unsubscribe. */
export function onToasts(subscriber: (toasts: Toast[]) => void): () => void {
  subscribers.add(subscriber);
  return () => void subscribers.delete(subscriber);
}

/** The notices shown now, and where: the edge and, at the top, how far down below the navigation. */
export const toastsNow = (): { toasts: Toast[]; edge: Edge; topOffsetPx: number } => ({ toasts: current, edge, topOffsetPx });
