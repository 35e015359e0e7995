/**
 * The chaos run's clients on the wire: every exchange recorded as the client saw it (status,
 * or `none` when the connection was cut), retries with the same idempotency key until a final
 * answer, and an SSE reader that resumes with `Last-Event-ID` after every disconnect.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { AnswerRecord } from './chaos-invariants.js';

export interface Exchange {
  status: AnswerRecord['status'];
  body: any;
  headers?: Headers;
}

/** A request that hangs past this is given up (recorded as `timeout`, apart from cut connections). */
const REQUEST_TIMEOUT_MS = 60_000;

/** One request; its answer (or its absence) goes to `answers`. */
export async function exchange(
  answers: AnswerRecord[],
  via: AnswerRecord['via'],
  what: string,
  url: string,
  init: { method: string; headers?: Record<string, string>; body?: unknown },
): Promise<Exchange> {
  const sentAt = Date.now();
  let result: Exchange;
  try {
    const response = await fetch(url, {
      method: init.method,
      headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    result = { status: response.status, body, headers: response.headers };
  } catch (error) {
    const gaveUp = error instanceof Error && error.name === 'TimeoutError';
    result = { status: gaveUp ? 'timeout' : 'none', body: undefined };
  }
  const code = refusalCode(result);
  answers.push({ sentAt, at: Date.now(), via, what, status: result.status, ...(code ? { code } : {}) });
  return result;
}

/** The error code of a refusal: REST `code`, or an MCP tool refusal's `structuredContent.code`. */
function refusalCode({ body }: Exchange): string | undefined {
  if (!body || typeof body !== 'object') return undefined;
  if (typeof body.code === 'string') return body.code;
  if (typeof body.error?.code === 'string') return body.error.code;
  if (body.result?.isError && typeof body.result.structuredContent?.code === 'string') return body.result.structuredContent.code;
  if (typeof body.error?.code === 'number') return `jsonrpc ${body.error.code}`;
  return undefined;
}

/** Worth sending again with the same key: no answer, a key still running, a budget, a dependency down. */
function retryable(answer: Exchange): boolean {
  if (answer.status === 'none' || answer.status === 'timeout' || answer.status === 409 || answer.status === 429 || answer.status === 503)
    return true;
  const result = answer.body?.result;
  return Boolean(result?.isError && result.structuredContent?.retryable);
}

/**
 * Sends `attempt` until its answer is final or `deadline` passes (then the last answer stands),
 * honouring `Retry-After` with a capped exponential backoff.
 */
export async function untilFinal(attempt: () => Promise<Exchange>, deadline: number): Promise<Exchange> {
  for (let n = 0; ; n++) {
    const answer = await attempt();
    if (!retryable(answer) || Date.now() > deadline) return answer;
    const retryAfterMs = (Number(answer.headers?.get('retry-after')) || 0) * 1000;
    await sleep(Math.min(4_000, Math.max(retryAfterMs, 250 * 2 ** n)) + Math.random() * 200);
  }
}

/** The MCP tool result of a JSON-RPC answer: its structured content, or its text parsed. */
export function toolResult(body: any): Record<string, any> | undefined {
  const result = body?.result;
  if (!result || result.isError) return undefined;
  if (result.structuredContent) return result.structuredContent;
  try {
    return JSON.parse(result.content?.[0]?.text ?? '');
  } catch {
    return undefined;
  }
}

export interface SseReader {
  agentId: string;
  received: number[];
  connections: number;
  /** Stops after the current connection (which is cut at once). */
  stop(): void;
  /** Resolves when the reader stopped. */
  done: Promise<void>;
  /** Reconnects from its last id until it got `untilId` (the stream's last), or `timeoutMs` passed. */
  catchUp(untilId: number, timeoutMs: number): Promise<void>;
}

/**
 * A client of `/mcp/:publicId/events/sse` that drops its connection every few seconds on
 * purpose (and loses it to the chaos besides), and each time comes back with `Last-Event-ID`
 * set to the last id it got. Every id it receives is kept, in order.
 */
export function startSseReader(
  answers: AnswerRecord[],
  base: string,
  agent: { agentId: string; publicId: string; secret: string },
  holdMs: [number, number],
): SseReader {
  let stopped = false;
  let cutNow: (() => void) | undefined;
  const reader: SseReader = {
    agentId: agent.agentId,
    received: [],
    connections: 0,
    stop: () => {
      stopped = true;
      cutNow?.();
    },
    done: Promise.resolve(),
    catchUp: async (untilId, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while ((reader.received.at(-1) ?? 0) < untilId && Date.now() < deadline) {
        await connect(untilId, deadline - Date.now());
        if ((reader.received.at(-1) ?? 0) < untilId) await sleep(200);
      }
    },
  };
  const last = () => reader.received.at(-1) ?? 0;
  /** One connection: until `holdFor` ms passed, or (catching up) until event `untilId` came. */
  const connect = async (untilId: number | undefined, holdFor: number) => {
    const abort = new AbortController();
    cutNow = () => abort.abort();
    const sentAt = Date.now();
    let status: number | 'none' = 'none';
    let cut = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = (ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => abort.abort(), ms);
    };
    try {
      const response = await fetch(`${base}/mcp/${agent.publicId}/events/sse`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${agent.secret}`, 'last-event-id': String(last()) },
        signal: abort.signal,
      });
      status = response.status;
      answers.push({ sentAt, at: Date.now(), via: 'sse', what: 'connect', status });
      if (status !== 200) {
        await response.body?.cancel();
        return;
      }
      reader.connections += 1;
      arm(holdFor);
      const decoder = new TextDecoder();
      let buffer = '';
      for await (const chunk of response.body!) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const id = /^id: ?(\d+)$/m.exec(buffer.slice(0, end));
          if (id) {
            reader.received.push(Number(id[1]));
            if (untilId !== undefined && Number(id[1]) >= untilId) abort.abort();
          }
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // Our own abort is a disconnect by choice; anything else cut the stream under us.
      if (!abort.signal.aborted) cut = true;
      if (status === 'none' && !abort.signal.aborted) answers.push({ sentAt, at: Date.now(), via: 'sse', what: 'connect', status });
    } finally {
      clearTimeout(timer);
      cutNow = undefined;
    }
    if (cut && status === 200) answers.push({ sentAt, at: Date.now(), via: 'sse', what: 'stream', status: 'none' });
  };
  reader.done = (async () => {
    while (!stopped) {
      await connect(undefined, holdMs[0] + Math.random() * (holdMs[1] - holdMs[0]));
      if (!stopped) await sleep(100 + Math.random() * 200);
    }
  })();
  return reader;
}
