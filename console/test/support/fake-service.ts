/**
 * A stand-in for the service behind the console's one client (`api.ts`), at the fetch boundary:
 * the real SDK `OperatorClient` sends real requests (bearer, CSRF, idempotency key, JSON) to a
 * fake `fetch` that answers from route handlers in the interface's envelopes (7.1). So the
 * console's component tests go through the SDK's own error mapping and event stream, as the
 * page does, with no service running.
 */
import { vi } from 'vitest';
import { client } from '../../src/api.js';

export interface FakeRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: Headers;
  body: unknown;
  signal: AbortSignal | undefined;
}

type Handler = (request: FakeRequest, match: RegExpExecArray) => Response | Promise<Response>;
interface Route {
  method: string;
  pattern: RegExp;
  handler: Handler;
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 409: 'Conflict' };

/** A JSON answer. */
export const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

/** The REST standard envelope, or the domain one when `code` is given (the error envelopes). */
export const refusal = (status: number, message: string, code?: string): Response =>
  json(status, { statusCode: status, message, error: REASONS[status] ?? 'Error', ...(code ? { code } : {}) });

/** The wallet the fake operator signed in with (base58, so the console takes it for a Solana wallet). */
export const OPERATOR = { id: 'usr_operator', walletAddress: 'Fake1111111111111111111111111111111111111111' };

export class FakeService {
  readonly requests: FakeRequest[] = [];
  private readonly routes: Route[] = [];

  /** Answers `method path` (a path or a pattern of the path) with `handler`; a later route wins over an earlier one. */
  on(method: string, path: string | RegExp, handler: Handler): this {
    const pattern = typeof path === 'string' ? new RegExp(`^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) : path;
    this.routes.unshift({ method, pattern, handler });
    return this;
  }

  /**
   * Holds the answer to `method path` until the test gives it: `arrived` resolves once the
   * request is in, `answer` sends the response (a loading state can be looked at meanwhile).
   */
  held(method: string, path: string | RegExp): { arrived: Promise<void>; answer(response: Response): void } {
    let arrive: () => void = () => undefined;
    let answer: (response: Response) => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      arrive = resolve;
    });
    const response = new Promise<Response>((resolve) => {
      answer = resolve;
    });
    this.on(method, path, () => {
      arrive();
      return response;
    });
    return { arrived, answer: (value) => answer(value) };
  }

  /** The requests made to `method path` so far. */
  calls(method: string, path: string | RegExp): FakeRequest[] {
    return this.requests.filter(
      (request) => request.method === method && (typeof path === 'string' ? request.path === path : path.test(request.path)),
    );
  }

  readonly fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(String(input));
    const text = typeof init.body === 'string' ? init.body : undefined;
    const request: FakeRequest = {
      method: init.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: new Headers(init.headers),
      body: text === undefined ? undefined : JSON.parse(text),
      signal: init.signal ?? undefined,
    };
    this.requests.push(request);
    for (const route of this.routes) {
      const match = route.method === request.method ? route.pattern.exec(request.path) : null;
      if (match) return route.handler(request, match);
    }
    return refusal(404, `Cannot ${request.method} ${request.path}`);
  };
}

/**
 * A fake service the console's client is signed in to: sign-in routes answered (SIWS with a
 * signer that signs nothing real: the fake checks no signature) and `fetch` replaced for the test.
 */
export async function signedInService(): Promise<FakeService> {
  const service = new FakeService()
    .on('GET', '/api/nest/auth/csrf', () => json(200, { csrfToken: 'csrf-token' }))
    .on('POST', '/api/nest/auth/nonce', () =>
      json(200, { message: `example.com wants you to sign in\n${OPERATOR.walletAddress}\n\nNonce: 1` }),
    )
    .on('POST', '/api/nest/auth/login', () => json(200, { accessToken: 'session-token', refreshToken: 'refresh-token', user: OPERATOR }));
  vi.stubGlobal('fetch', service.fetch);
  await client.signInWithSolana({ address: OPERATOR.walletAddress, signMessage: () => new Uint8Array(64) });
  return service;
}

/**
 * An event stream the test writes to: `open` answers an SSE request with it, `send` writes one
 * event, `end` closes it as a server (or a dropped connection) would.
 */
export class FakeEventStream {
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private readonly encoder = new TextEncoder();

  open(): Response {
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.controller = controller;
      },
    });
    return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
  }

  send(id: number, event: string, data: Record<string, unknown>): void {
    this.controller?.enqueue(this.encoder.encode(`id: ${id}\nevent: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`));
  }

  end(): void {
    this.controller?.close();
  }
}
