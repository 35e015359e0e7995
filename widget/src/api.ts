/** The widget's calls to the service (interface 4.7), with the session token it was given. */

/** Why a call failed, as the widget tells its reader. */
export type Failure = { kind: 'expired' } | { kind: 'refused' } | { kind: 'error'; message: string };

export class WidgetError extends Error {
  constructor(readonly failure: Failure) {
    super(failure.kind === 'error' ? failure.message : failure.kind);
  }
}

export interface ChatReply {
  reply: string;
  executed?: boolean;
}

export interface Challenge {
  message: string;
}

export class WidgetApi {
  private token: string | undefined;

  constructor(private readonly base: string) {}

  get started(): boolean {
    return this.token !== undefined;
  }

  /** A new session for this page (the service checks the page's origin). */
  async init(): Promise<void> {
    this.token = undefined;
    const body = await this.call<{ sessionToken: string }>('init', undefined);
    this.token = body.sessionToken;
  }

  chat(message: string, id: string): Promise<ChatReply> {
    return this.call('chat', { message, message_id: id });
  }

  challenge(chain: 'solana' | 'evm', walletAddress: string): Promise<Challenge> {
    return this.call('sign-in/nonce', { chain, walletAddress });
  }

  signIn(message: string, signature: string): Promise<unknown> {
    return this.call('sign-in', { message, signature });
  }

  /** Fire and forget: a lost event must never disturb the chat. */
  event(type: 'open' | 'close' | 'message_shown' | 'error', detail?: string): void {
    if (!this.token) return;
    this.call('client-event', detail ? { type, detail: detail.slice(0, 200) } : { type }).catch(() => undefined);
  }

  private async call<T>(path: string, body: unknown): Promise<T> {
    // `init` carries nothing: a simple CORS request, without a preflight round trip.
    const headers: Record<string, string> = body === undefined ? {} : { 'Content-Type': 'application/json' };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    let res: Response;
    try {
      res = await fetch(`${this.base}/${path}`, {
        method: 'POST',
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        credentials: 'omit',
      });
    } catch {
      // A refused origin gets no CORS headers: the browser reports it as a network failure.
      throw new WidgetError(this.token ? { kind: 'error', message: 'The chat service cannot be reached.' } : { kind: 'refused' });
    }
    const data: unknown = await res.json().catch(() => ({}));
    if (res.status === 401) throw new WidgetError({ kind: 'expired' });
    if (res.status === 403 && path === 'init') throw new WidgetError({ kind: 'refused' });
    const envelope = (data && typeof data === 'object' ? data : {}) as ErrorEnvelope;
    if (!res.ok || envelope.success === false) {
      const message = envelope.error?.message ?? (Array.isArray(envelope.message) ? envelope.message.join('; ') : envelope.message);
      throw new WidgetError({ kind: 'error', message: typeof message === 'string' ? message : 'Something went wrong.' });
    }
    return data as T;
  }
}

/** What an answer may say when it refuses: the interface's envelope (`error.message`), or a framework's `message` (a string or a list). */
interface ErrorEnvelope {
  success?: unknown;
  error?: { message?: unknown };
  message?: unknown;
}
