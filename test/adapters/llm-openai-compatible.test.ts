import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { OpenAiCompatibleLlm, type OpenAiCompatibleOptions } from '../../adapters/llm/openai-compatible.adapter.js';
import { retryAfterSeconds } from '../../adapters/llm/openai-wire.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { httpStatusOf } from '../../src/surface-common/http-status.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const API_KEY = 'sk-test-0123456789abcdef';
let server: Server;
let baseUrl: string;
let handler: Handler;
let seen: Seen[];

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Handler =>
  (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
/** OpenAI's documented success shape. */
const completion = (content: string | null, finish = 'stop') =>
  json(200, {
    id: 'chatcmpl-123',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-test',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: finish }],
    usage: { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 },
    system_fingerprint: 'fp_1',
  });
const vendorError = (status: number, error: Record<string, unknown>, headers: Record<string, string> = {}) =>
  json(status, { error: { param: null, ...error } }, headers);
const serverError = vendorError(500, {
  message: 'The server had an error while processing your request.',
  type: 'server_error',
  code: null,
});

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  seen = [];
  handler = completion('Hello from the model');
});
afterEach(() => vi.useRealTimers());

const llm = (options: Partial<OpenAiCompatibleOptions> = {}) =>
  new OpenAiCompatibleLlm({ baseUrl, model: 'gpt-test', apiKey: API_KEY, timeoutMs: 2_000, name: 'test-llm', ...options });
const ask = (adapter: OpenAiCompatibleLlm, signal?: AbortSignal) =>
  adapter.complete({ system: 'You are terse.', messages: [{ role: 'user', content: 'hi' }], ...(signal ? { signal } : {}) });
async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe('OpenAI-compatible LLM adapter', () => {
  it('sends a chat-completions request and reads the documented response', async () => {
    const result = await llm().complete({
      system: 'Facts.',
      messages: [
        { role: 'user', content: 'status?' },
        { role: 'assistant', content: 'ok' },
      ],
      maxTokens: 50,
    });
    expect(result).toEqual({ text: 'Hello from the model', usage: { promptTokens: 12, completionTokens: 5, totalTokens: 17 } });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    });
    expect(JSON.parse(seen[0]!.body)).toEqual({
      model: 'gpt-test',
      messages: [
        { role: 'system', content: 'Facts.' },
        { role: 'user', content: 'status?' },
        { role: 'assistant', content: 'ok' },
      ],
      max_tokens: 50,
    });
  });

  it('defaults the provider name to the host and reads the key from LLM_API_KEY_FILE', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'llm-key-'));
    try {
      writeFileSync(join(dir, 'key'), `${API_KEY}\n`);
      const adapter = new OpenAiCompatibleLlm({ baseUrl: `${baseUrl}/`, model: 'm', timeoutMs: 1000, apiKeyFile: join(dir, 'key') });
      expect(adapter.name).toBe(new URL(baseUrl).host);
      await ask(adapter);
      expect(seen[0]!.headers.authorization).toBe(`Bearer ${API_KEY}`);
      expect(() => new OpenAiCompatibleLlm({ baseUrl, model: 'm', timeoutMs: 1000, apiKeyFile: join(dir, 'missing') })).toThrow(
        /LLM_API_KEY_FILE: cannot read/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    [
      '401 bad key',
      vendorError(401, {
        message: `Incorrect API key provided: ${API_KEY.slice(0, 8)}***.`,
        type: 'invalid_request_error',
        code: 'invalid_api_key',
      }),
      'LLM_CONFIGURATION_ERROR',
      500,
    ],
    ['403 forbidden', vendorError(403, { message: 'Forbidden', type: 'invalid_request_error' }), 'LLM_CONFIGURATION_ERROR', 500],
    [
      '429 quota',
      vendorError(429, { message: 'You exceeded your current quota.', type: 'insufficient_quota', code: 'insufficient_quota' }),
      'LLM_CONFIGURATION_ERROR',
      500,
    ],
    [
      '404 model',
      vendorError(404, { message: 'The model `gpt-test` does not exist', type: 'invalid_request_error', code: 'model_not_found' }),
      'LLM_CONFIGURATION_ERROR',
      500,
    ],
    [
      '400 context length',
      vendorError(400, {
        message: "This model's maximum context length is 8192 tokens.",
        type: 'invalid_request_error',
        code: 'context_length_exceeded',
      }),
      'LLM_TOKEN_LIMIT_EXCEEDED',
      413,
    ],
    [
      '400 context length (message only)',
      vendorError(400, { message: 'Please reduce the length of the messages.' }),
      'LLM_TOKEN_LIMIT_EXCEEDED',
      413,
    ],
    ['413', json(413, { error: { message: 'Request too large' } }), 'LLM_TOKEN_LIMIT_EXCEEDED', 413],
    ['500', serverError, 'LLM_PROVIDER_UNAVAILABLE', 503],
    ['503 empty body', ((_req, res) => res.writeHead(503).end()) as Handler, 'LLM_PROVIDER_UNAVAILABLE', 503],
    [
      'malformed JSON',
      ((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [')) as Handler,
      'LLM_PROVIDER_UNAVAILABLE',
      503,
    ],
    ['unexpected shape', json(200, { choices: [] }), 'LLM_PROVIDER_UNAVAILABLE', 503],
    ['empty content', completion(null), 'LLM_PROVIDER_UNAVAILABLE', 503],
    ['cut off by max_tokens', completion('', 'length'), 'LLM_TOKEN_LIMIT_EXCEEDED', 413],
  ])('translates %s', async (_name, reply, code, status) => {
    handler = reply;
    const error = await failure(ask(llm()));
    expect({ code: error.code, status: httpStatusOf(error) }).toEqual({ code, status });
    // A vendor 401 text can echo part of the key: none of it reaches our error.
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain(API_KEY.slice(0, 8));
  });

  it('translates 429 into LLM_RATE_LIMIT_EXCEEDED with the vendor retry-after', async () => {
    handler = vendorError(
      429,
      { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' },
      { 'retry-after': '7' },
    );
    expect(await failure(ask(llm()))).toMatchObject({
      code: 'LLM_RATE_LIMIT_EXCEEDED',
      kind: 'rate_limited',
      retryable: true,
      retryAfterSeconds: 7,
      message: 'Rate limit exceeded for LLM provider: test-llm',
    });
    handler = vendorError(429, { message: 'slow down' }, { 'retry-after-ms': '1500' });
    expect(await failure(ask(llm()))).toMatchObject({ retryAfterSeconds: 2 });
  });

  it('times out a slow answer and a stalled body', async () => {
    handler = (_req, res) => void setTimeout(() => completion('late')(_req, res, ''), 1_000);
    expect(await failure(ask(llm({ timeoutMs: 100 })))).toMatchObject({
      code: 'LLM_PROVIDER_UNAVAILABLE',
      message: 'LLM provider unavailable: test-llm (timed out after 100 ms)',
    });
    handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"choices":');
    };
    expect(await failure(ask(llm({ timeoutMs: 100 })))).toMatchObject({
      code: 'LLM_PROVIDER_UNAVAILABLE',
      message: expect.stringContaining('timed out'),
    });
  });

  it('reports a refused connection as unavailable', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await failure(ask(llm({ baseUrl: `http://127.0.0.1:${port}/v1` })))).toMatchObject({
      code: 'LLM_PROVIDER_UNAVAILABLE',
      message: expect.stringContaining('network error'),
    });
  });

  it('rejects with the caller abort reason and does not count it as a provider failure', async () => {
    handler = (_req, res) => void setTimeout(() => completion('late')(_req, res, ''), 500);
    const adapter = llm({ breaker: { failureThreshold: 1 } });
    const controller = new AbortController();
    const pending = ask(adapter, controller.signal);
    setTimeout(() => controller.abort(new Error('client went away')), 20);
    await expect(pending).rejects.toThrow('client went away');
    expect(adapter.circuitState).toBe('closed');
  });

  it('ping lists models with the same credentials', async () => {
    handler = json(200, { object: 'list', data: [{ id: 'gpt-test', object: 'model' }] });
    await llm().ping();
    expect(seen[0]).toMatchObject({ method: 'GET', url: '/v1/models', headers: { authorization: `Bearer ${API_KEY}` } });
    handler = vendorError(401, { message: 'bad key' });
    expect(await failure(llm().ping())).toMatchObject({ code: 'LLM_CONFIGURATION_ERROR' });
  });
});

describe('OpenAI-compatible LLM adapter: circuit breaker', () => {
  it('opens after consecutive provider failures, fails fast, then half-opens after the wait', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.UTC(2026, 0, 1));
    const adapter = llm({ breaker: { failureThreshold: 3, halfOpenAfterMs: 60_000 } });
    handler = serverError;
    for (let i = 0; i < 3; i++) expect(await failure(ask(adapter))).toMatchObject({ code: 'LLM_PROVIDER_UNAVAILABLE' });
    expect(adapter.circuitState).toBe('open');

    const calls = seen.length;
    const open = await failure(ask(adapter));
    expect(open).toMatchObject({
      code: 'LLM_CIRCUIT_BREAKER_OPEN',
      kind: 'unavailable',
      retryable: true,
      message: 'Circuit breaker open for provider: test-llm',
      retryAfterSeconds: 60,
    });
    expect(seen.length).toBe(calls); // failed fast: the provider was not called
    vi.setSystemTime(Date.UTC(2026, 0, 1, 0, 0, 45));
    expect(await failure(ask(adapter))).toMatchObject({ code: 'LLM_CIRCUIT_BREAKER_OPEN', retryAfterSeconds: 15 });
    expect(await failure(adapter.ping())).toMatchObject({ code: 'LLM_CIRCUIT_BREAKER_OPEN' });

    // After 60 s one probe goes through; it fails, so the circuit opens again for another 60 s.
    vi.setSystemTime(Date.UTC(2026, 0, 1, 0, 1, 1));
    expect(await failure(ask(adapter))).toMatchObject({ code: 'LLM_PROVIDER_UNAVAILABLE' });
    expect(seen.length).toBe(calls + 1);
    expect(await failure(ask(adapter))).toMatchObject({ code: 'LLM_CIRCUIT_BREAKER_OPEN' });

    // The next probe succeeds and closes the circuit.
    vi.setSystemTime(Date.UTC(2026, 0, 1, 0, 2, 2));
    handler = completion('back');
    expect(await ask(adapter)).toMatchObject({ text: 'back' });
    expect(adapter.circuitState).toBe('closed');
    expect(await ask(adapter)).toMatchObject({ text: 'back' });
  });

  it('does not open on errors that say nothing about the provider health', async () => {
    const adapter = llm({ breaker: { failureThreshold: 2 } });
    handler = vendorError(429, { message: 'slow down' }, { 'retry-after': '1' });
    for (let i = 0; i < 3; i++) await failure(ask(adapter));
    handler = vendorError(401, { message: 'bad key' });
    for (let i = 0; i < 3; i++) await failure(ask(adapter));
    expect(adapter.circuitState).toBe('closed');
  });

  it('a success resets the count of consecutive failures', async () => {
    const adapter = llm({ breaker: { failureThreshold: 2 } });
    for (const reply of [serverError, completion('ok'), serverError, completion('ok'), serverError]) {
      handler = reply;
      await ask(adapter).catch(() => undefined);
    }
    expect(adapter.circuitState).toBe('closed');
  });
});

describe('retry-after parsing', () => {
  it('reads seconds, milliseconds and HTTP dates', () => {
    const now = Date.UTC(2026, 0, 1);
    expect(retryAfterSeconds(new Headers({ 'retry-after': '3' }), now)).toBe(3);
    expect(retryAfterSeconds(new Headers({ 'retry-after': '0.2' }), now)).toBe(1);
    expect(retryAfterSeconds(new Headers({ 'retry-after-ms': '2500', 'retry-after': '9' }), now)).toBe(3);
    expect(retryAfterSeconds(new Headers({ 'retry-after': new Date(now + 30_000).toUTCString() }), now)).toBe(30);
    expect(retryAfterSeconds(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
    expect(retryAfterSeconds(new Headers(), now)).toBeUndefined();
  });
});
