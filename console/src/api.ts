/**
 * The console's one client of the service: the SDK's OperatorClient on the page's own origin.
 * The access token lives in memory only; the refresh token stays in the service's HttpOnly
 * cookie, which no script of the page (nor an extension) can read, so a reload or a new tab
 * picks the session up without another signature. No token or key secret is ever written to
 * storage the page's scripts could read later.
 */
import { isSdkError, OperatorClient, type SessionUser } from 'agent-runtime-sdk';

/** One name for the cross-tab refresh lock and the tabs' channel. */
const SESSION_CHANNEL = 'agent-console-session';

type SessionListener = (user: SessionUser | undefined) => void;
const listeners = new Set<SessionListener>();
const tell = (user: SessionUser | undefined) => {
  for (const listener of listeners) listener(user);
};

// Tabs tell each other when they sign in or out; each then asks the cookie what holds now.
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(SESSION_CHANNEL) : undefined;

export const client = new OperatorClient({
  baseUrl: window.location.origin,
  sessionCookie: true,
  // Two tabs presenting the one cookie at once would read as reuse, which ends the session: one refresh at a time.
  refreshLock: <T>(run: () => Promise<T>): Promise<T> =>
    navigator.locks ? (navigator.locks.request(SESSION_CHANNEL, run) as Promise<T>) : run(),
  onSessionEnded: () => tell(undefined),
});

/** Follows sign-in and sign-out (this tab's, another tab's, or the service ending the session); answers the unsubscribe. */
export function onSessionChange(listener: SessionListener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The session of this tab, else the one the refresh cookie holds (after a reload, in a new tab); undefined when none. */
export async function resumeSession(): Promise<SessionUser | undefined> {
  return client.session.signedIn ? client.user : client.resume();
}

/** This tab signed in: the other tabs pick the new session up from the cookie. */
export function signedIn(user: SessionUser): void {
  tell(user);
  channel?.postMessage('changed');
}

/** Ends the session on the service (which clears the cookie); the other tabs follow at once. */
export async function signOut(): Promise<void> {
  try {
    await client.signOut();
  } finally {
    tell(undefined);
    channel?.postMessage('changed');
  }
}

channel?.addEventListener('message', () => {
  client.resume().then(tell, () => tell(undefined));
});

/** The service's message word for word (interface 7), or what went wrong on the way there. */
export function errorText(error: unknown): string {
  if (isSdkError(error)) {
    if (error.code === 'network_error') return `The service did not answer (${error.message}). Check your connection and try again.`;
    if (error.code === 'rate_limit_error' && error.retryAfter !== undefined) return `${error.message} Try again in ${error.retryAfter} s.`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
