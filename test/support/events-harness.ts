/**
 * Helpers of the MCP event stream tests: an operator with an agent and keys, an SSE reader
 * (fetch + a small parser of the text stream) and a WebSocket client that records everything.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import { Client, signInSolana } from './test-service.js';

export interface AgentFixture {
  operator: Client;
  agentId: string;
  publicId: string;
  /** Creates a `read` key of this agent. */
  newKey(): Promise<{ keyId: string; secret: string }>;
  /** Pauses then resumes `times` times: two `agent.updated` each. */
  toggle(times: number): Promise<void>;
}

/** A signed-in operator with a fresh agent (its own event stream, so ids start clean). */
export async function agentFixture(url: string, operator?: Client): Promise<AgentFixture> {
  const client = operator ?? new Client(url);
  if (!operator) await signInSolana(client);
  const created = await client.post('/api/nest/agents', { name: `agent-${Math.random().toString(36).slice(2, 8)}` });
  if (created.status !== 201) throw new Error(`create agent: ${created.status} ${JSON.stringify(created.body)}`);
  const { agentId, publicId } = created.body as { agentId: string; publicId: string };
  const expectOk = async (path: string) => {
    const result = await client.post(path);
    if (result.status !== 200) throw new Error(`${path}: ${result.status} ${JSON.stringify(result.body)}`);
  };
  return {
    operator: client,
    agentId,
    publicId,
    newKey: async () => {
      const key = await client.post(`/api/nest/agents/${agentId}/keys`, { name: 'events', scope: 'read' });
      if (key.status !== 201) throw new Error(`create key: ${key.status}`);
      return { keyId: key.body.keyId as string, secret: key.body.secret as string };
    },
    toggle: async (times) => {
      for (let i = 0; i < times; i++) {
        await expectOk(`/api/nest/agents/${agentId}/pause`);
        await expectOk(`/api/nest/agents/${agentId}/resume`);
      }
    },
  };
}

/** Polls `condition` in real time; the service answers over real sockets even under a manual clock. */
export async function until(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

export interface SseFrame {
  id?: number;
  event?: string;
  data?: Record<string, any>;
  /** Text of a comment line (`: keep-alive`). */
  comment?: string;
}

export interface SseStream {
  status: number;
  headers: Headers;
  /** The JSON body of a refused request. */
  body?: any;
  frames: SseFrame[];
  events(): Array<Required<Pick<SseFrame, 'id' | 'event' | 'data'>>>;
  comments(): string[];
  ended: boolean;
  close(): void;
}

/** Opens `/mcp/:publicId/events/sse` with fetch and parses frames as they arrive. */
export async function openSse(
  base: string,
  publicId: string,
  options: { secret?: string; headers?: Record<string, string>; query?: string } = {},
): Promise<SseStream> {
  const abort = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream', ...options.headers };
  if (options.secret) headers.authorization = `Bearer ${options.secret}`;
  const response = await fetch(`${base}/mcp/${publicId}/events/sse${options.query ?? ''}`, { headers, signal: abort.signal });
  const stream: SseStream = {
    status: response.status,
    headers: response.headers,
    frames: [],
    events: () => stream.frames.filter((f) => f.event !== undefined) as ReturnType<SseStream['events']>,
    comments: () => stream.frames.flatMap((f) => (f.comment === undefined ? [] : [f.comment])),
    ended: false,
    close: () => abort.abort(),
  };
  if (response.status !== 200) {
    stream.body = await response.json();
    stream.ended = true;
    return stream;
  }
  void pump(response.body!, stream);
  return stream;
}

async function pump(body: ReadableStream<Uint8Array>, stream: SseStream): Promise<void> {
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for await (const chunk of body) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        stream.frames.push(parseBlock(buffer.slice(0, end)));
        buffer = buffer.slice(end + 2);
      }
    }
  } catch {
    // Aborted by the test: that is how a client disconnects.
  } finally {
    stream.ended = true;
  }
}

function parseBlock(block: string): SseFrame {
  const frame: SseFrame = {};
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) frame.comment = line.slice(1).trim();
    const [, field, value] = /^(id|event|data): ?(.*)$/.exec(line) ?? [];
    if (field === 'id') frame.id = Number(value);
    if (field === 'event') frame.event = value;
    if (field === 'data') frame.data = JSON.parse(value!);
  }
  return frame;
}

export interface WsClient {
  ws: WebSocket;
  messages: Array<{ id: number; event: string; data: Record<string, any> }>;
  pings: number;
  /** Set once the server closed the connection. */
  closed?: { code: number; reason: string };
  /** Headers of the server's 101 answer. */
  handshake?: IncomingHttpHeaders;
}

export type WsResult = { ok: true; client: WsClient } | { ok: false; status: number; body: any; headers: IncomingHttpHeaders };

/** Opens `/mcp/:publicId/events/ws`; a refused handshake resolves with its HTTP status and body. */
export function openWs(
  base: string,
  publicId: string,
  options: { secret?: string; viaProtocol?: boolean; query?: string; path?: string; origin?: string } = {},
): Promise<WsResult> {
  const url = `${base.replace(/^http/, 'ws')}${options.path ?? `/mcp/${publicId}/events/ws`}${options.query ?? ''}`;
  const viaHeader = options.secret && !options.viaProtocol;
  const ws = new WebSocket(url, options.viaProtocol && options.secret ? ['bearer', options.secret] : [], {
    headers: viaHeader ? { authorization: `Bearer ${options.secret}` } : {},
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  });
  const client: WsClient = { ws, messages: [], pings: 0 };
  ws.on('message', (raw) => client.messages.push(JSON.parse(String(raw))));
  ws.on('ping', () => (client.pings += 1));
  ws.on('close', (code, reason) => (client.closed = { code, reason: reason.toString() }));
  ws.on('upgrade', (res) => (client.handshake = res.headers));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ ok: true, client }));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () =>
        resolve({ ok: false, status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined, headers: res.headers }),
      );
    });
    ws.once('error', (error) => reject(error));
  });
}
