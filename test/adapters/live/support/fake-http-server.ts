import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export type Route = (request: SeenRequest, res: ServerResponse) => void | Promise<void>;

/**
 * A local `node:http` server standing in for a vendor API: routes by `METHOD /path`,
 * records every request, and lets a test swap a route's answer (errors, stalls).
 */
export class FakeHttpServer {
  readonly seen: SeenRequest[] = [];
  private readonly routes = new Map<string, Route>();
  private readonly server: Server;
  private stalled: ServerResponse[] = [];

  private constructor() {
    this.server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => void this.dispatch(req, res, text));
    });
  }

  static async start(): Promise<FakeHttpServer> {
    const fake = new FakeHttpServer();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  route(method: 'GET' | 'POST', path: string, handler: Route): void {
    this.routes.set(`${method} ${path}`, handler);
  }

  /** Requests seen for one path. */
  hits(path: string): SeenRequest[] {
    return this.seen.filter((r) => r.path === path);
  }

  async close(): Promise<void> {
    for (const res of this.stalled) res.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, text: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://local');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Kept as text: the handler decides.
    }
    const request: SeenRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body };
    this.seen.push(request);
    const handler = this.routes.get(`${request.method} ${url.pathname}`);
    if (!handler) return void json(404, { error: 'not found' })(request, res);
    try {
      await handler(request, res);
    } catch (error) {
      res.writeHead(500).end(String(error));
    }
  }

  /** A route that never answers (until the server closes), for timeout tests. */
  stall(): Route {
    return (_request, res) => {
      this.stalled.push(res);
    };
  }
}

/** A route answering `status` with a JSON body. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Route {
  return (_request, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
}
