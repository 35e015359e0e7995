/**
 * Fakes of the SDK's environment for unit tests: a driven clock (sleeps are recorded and
 * resolve at once, advancing time) and a scripted fetch that records every request.
 */
import type { AgentEvent, EventSubscription, SdkClock } from '../../sdk/src/index.js';

export class DrivenClock implements SdkClock {
  readonly sleeps: number[] = [];
  constructor(public time = Date.UTC(2026, 0, 1)) {}
  now = () => this.time;
  sleep = async (ms: number, signal?: AbortSignal) => {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.time += ms;
  };
}

export interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: any;
}

/** A fetch answering each request with the next scripted answer (a Response, or an Error to throw). */
export function scriptedFetch(answers: Array<Response | Error | ((request: Recorded) => Response | Error)>) {
  const requests: Recorded[] = [];
  const fetch = async (url: string | URL | Request, init: RequestInit = {}) => {
    const recorded: Recorded = {
      method: init.method ?? 'GET',
      url: String(url),
      headers: Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>)),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    requests.push(recorded);
    const next = answers.shift();
    if (next === undefined) throw new Error(`unexpected request ${recorded.method} ${recorded.url}`);
    const answer = typeof next === 'function' ? next(recorded) : next;
    if (answer instanceof Error) throw answer;
    return answer;
  };
  return { fetch: fetch as typeof globalThis.fetch, requests };
}

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });

/** What undici throws when the connection is refused. */
export const refused = () =>
  Object.assign(new TypeError('fetch failed'), {
    cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
  });

/** A JSON-RPC tool result. */
export const toolResult = (value: unknown) =>
  json(200, {
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: false },
  });

/** A tool's refusal as the service sends it: the message as text, `{code, message, retryable, retryAfter?}` as structured content. */
export const toolRefusal = (refusal: { code: string; message: string; retryable: boolean; retryAfter?: number }) =>
  json(200, {
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: refusal.message }], structuredContent: refusal, isError: true },
  });

/** An unsigned JWT whose `exp` is `expSeconds` (the SDK reads `exp` to know when to renew, never verifies). */
export const jwtWithExp = (expSeconds: number) => `eyJhbGciOiJub25lIn0.${btoa(JSON.stringify({ exp: expSeconds })).replace(/=+$/, '')}.`;

/** Collects a subscription's events (and its end, or the error it ended with) in the background. */
export function collectEvents(subscription: EventSubscription) {
  const events: AgentEvent[] = [];
  const state: { ended: boolean; error?: unknown } = { ended: false };
  void (async () => {
    try {
      for await (const event of subscription) events.push(event);
    } catch (error) {
      state.error = error;
    }
    state.ended = true;
  })();
  return { events, state };
}
