/**
 * The chaos run's load balancer: a small HTTP proxy that hands each request to the next live
 * service process in turn. Bodies are read whole first, so a request whose connection was
 * refused (a killed process not yet marked down) goes to the next process: it never reached
 * the first. Answers are piped as they come, so an SSE stream passes event by event; when a
 * process dies under a request or a stream, the client's connection is cut, as a real
 * balancer does, and the client sees no answer.
 */
import { Agent, createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Hop-by-hop headers (RFC 9110 §7.6.1) are not forwarded. */
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);

export class RoundRobinProxy {
  private next = 0;
  private readonly down = new Set<number>();
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 256 });
  /** Requests that found no live process at all, or lost theirs under them. */
  cut = 0;

  private constructor(
    private readonly server: Server,
    private readonly backends: string[],
  ) {}

  static async start(backends: string[]): Promise<RoundRobinProxy & { url: string }> {
    const proxy: RoundRobinProxy = new RoundRobinProxy(
      createServer((req, res) => void proxy.handle(req, res)),
      [...backends],
    );
    proxy.server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve) => proxy.server.listen(0, '127.0.0.1', resolve));
    return Object.assign(proxy, { url: `http://127.0.0.1:${(proxy.server.address() as AddressInfo).port}` });
  }

  /** Takes backend `i` out of the rotation (its process was killed). */
  markDown(i: number): void {
    this.down.add(i);
  }

  /** Puts backend `i` back, at a new address (its process was restarted). */
  markUp(i: number, url: string): void {
    this.backends[i] = url;
    this.down.delete(i);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    this.agent.destroy();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of req) chunks.push(chunk as Buffer);
    } catch {
      return void res.destroy();
    }
    const body = Buffer.concat(chunks);
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP.has(name)));
    for (let tries = 0; tries < this.backends.length; tries++) {
      const i = this.pick();
      if (i === undefined) break;
      const outcome = await this.forward(this.backends[i]!, req, res, headers, body);
      if (outcome !== 'refused') return;
    }
    this.cut += 1;
    res.destroy();
  }

  private pick(): number | undefined {
    for (let k = 0; k < this.backends.length; k++) {
      const i = this.next++ % this.backends.length;
      if (!this.down.has(i)) return i;
    }
    return undefined;
  }

  /** `refused`: the process took no connection, try another; `done`: answered or cut. */
  private forward(
    base: string,
    req: IncomingMessage,
    res: ServerResponse,
    headers: Record<string, string | string[] | undefined>,
    body: Buffer,
  ): Promise<'refused' | 'done'> {
    const target = new URL(base);
    return new Promise((resolve) => {
      let answered = false;
      const upstream = request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: this.agent },
        (answer) => {
          answered = true;
          const out = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP.has(name)));
          res.writeHead(answer.statusCode ?? 502, out);
          res.flushHeaders();
          answer.on('data', (chunk: Buffer) => res.write(chunk));
          answer.on('end', () => res.end());
          // The process died mid-answer (or mid-stream): cut the client too. (Not when the
          // client is the one who left: then the upstream was destroyed on its behalf.)
          const lost = () => {
            if (res.destroyed) return;
            this.cut += 1;
            res.destroy();
          };
          answer.on('error', lost);
          answer.on('aborted', lost);
          resolve('done');
        },
      );
      // The client left (an SSE reader disconnecting): stop the upstream request as well.
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (answered) return;
        if (error.code === 'ECONNREFUSED') return resolve('refused');
        // A kept-alive socket the process closed as idle just as we reused it: the request
        // never reached it (the race every keep-alive client has; Node's documentation retries it).
        if (upstream.reusedSocket && error.code === 'ECONNRESET' && !this.down.has(this.backends.indexOf(base))) return resolve('refused');
        this.cut += 1;
        res.destroy();
        resolve('done');
      });
      upstream.end(body);
    });
  }
}
