/**
 * A proxy in front of a real service for SDK tests: it forwards every request, except those a
 * script takes over — answered by the proxy itself (a 429 the service never saw), or forwarded
 * and then the connection dropped before the answer reaches the client (the service did the
 * work; the client sees a network error). It records what went through and what came back.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ProxyStep = 'forward' | 'drop-after-forward' | { status: number; headers?: Record<string, string>; body: unknown };

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  step: 'forward' | 'drop-after-forward' | 'answered';
  /** The service's status and headers, when it was asked. */
  upstream?: { status: number; headers: Record<string, string> };
}

const HOP_BY_HOP = new Set(['host', 'connection', 'content-length', 'keep-alive', 'transfer-encoding']);

export interface FlakyProxy {
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/** `script` picks the step for a request (undefined: forward). */
export async function flakyProxy(
  target: string,
  script: (request: { method: string; path: string }) => ProxyStep | undefined,
): Promise<FlakyProxy> {
  const requests: ProxiedRequest[] = [];
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const method = req.method ?? 'GET';
    const path = req.url ?? '/';
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([name, value]) => typeof value === 'string' && !HOP_BY_HOP.has(name)),
    ) as Record<string, string>;
    const step = script({ method, path }) ?? 'forward';
    const recorded: ProxiedRequest = { method, path, headers, step: typeof step === 'string' ? step : 'answered' };
    requests.push(recorded);
    if (typeof step === 'object') {
      res.writeHead(step.status, { 'content-type': 'application/json', ...step.headers }).end(JSON.stringify(step.body));
      return;
    }
    const answer = await fetch(`${target}${path}`, { method, headers, ...(body.length > 0 ? { body: new Uint8Array(body) } : {}) });
    const text = await answer.text();
    const answerHeaders = Object.fromEntries(answer.headers);
    recorded.upstream = { status: answer.status, headers: answerHeaders };
    if (step === 'drop-after-forward') return void req.socket.destroy();
    delete answerHeaders['content-encoding'];
    delete answerHeaders['content-length'];
    delete answerHeaders['transfer-encoding'];
    res.writeHead(answer.status, answerHeaders).end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}
