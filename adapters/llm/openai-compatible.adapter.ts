import { readFileSync } from 'node:fs';
import { AppError } from '../../kernel/errors/app-error.js';
import type { LlmCompletion, LlmPort, LlmRequest } from '../../kernel/ports/llm.port.js';
import { DEFAULT_BREAKER, LlmCircuitBreaker } from './llm-circuit-breaker.js';
import type { BreakerLogger } from '../resilience/provider-breaker.js';
import { chatCompletionSchema, translateVendorError, unavailable } from './openai-wire.js';

export interface OpenAiCompatibleOptions {
  /** API root including the version, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  model: string;
  /** Sent as `Authorization: Bearer`; absent for local servers that need none. Never logged. */
  apiKey?: string;
  /** File holding the key (`LLM_API_KEY_FILE`), read once at construction when `apiKey` is absent. */
  apiKeyFile?: string;
  /** Budget of one call, response body included. */
  timeoutMs: number;
  /** Default: the host of `baseUrl`. */
  name?: string;
  /** Completion tokens when the request names none. */
  defaultMaxTokens?: number;
  breaker?: { failureThreshold?: number; halfOpenAfterMs?: number; logger?: BreakerLogger };
  /** Injected for tests; default global `fetch`. */
  fetch?: typeof fetch;
}

const DEFAULT_MAX_TOKENS = 512;

/**
 * Chat completions over `fetch` against any OpenAI-compatible server (OpenAI, vLLM,
 * llama.cpp, Ollama's `/v1`, ...). Every call has its own timeout and goes through a
 * circuit breaker; every vendor failure leaves this file as an `AppError` of `llm.port.ts`.
 */
export class OpenAiCompatibleLlm implements LlmPort {
  readonly name: string;
  private readonly breaker: LlmCircuitBreaker;
  private readonly fetchImpl: typeof fetch;
  private readonly root: string;
  private readonly apiKey: string | undefined;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    this.root = options.baseUrl.replace(/\/+$/, '');
    this.name = options.name ?? new URL(this.root).host;
    this.fetchImpl = options.fetch ?? fetch;
    this.apiKey = options.apiKey ?? readKeyFile(options.apiKeyFile);
    this.breaker = new LlmCircuitBreaker({ provider: this.name, ...DEFAULT_BREAKER, ...options.breaker });
  }

  /** Breaker state, for diagnostics and tests. */
  get circuitState(): LlmCircuitBreaker['state'] {
    return this.breaker.state;
  }

  complete(request: LlmRequest): Promise<LlmCompletion> {
    return this.breaker.execute(() => this.call(request));
  }

  /** `GET /models`: cheap, needs the same credentials; does not move the breaker. */
  async ping(): Promise<void> {
    if (this.breaker.state === 'open') throw this.breaker.openError();
    await this.request('GET', '/models', undefined, undefined);
  }

  private async call(request: LlmRequest): Promise<LlmCompletion> {
    const body = {
      model: this.options.model,
      messages: [{ role: 'system', content: request.system }, ...request.messages.map(({ role, content }) => ({ role, content }))],
      max_tokens: request.maxTokens ?? this.options.defaultMaxTokens ?? DEFAULT_MAX_TOKENS,
    };
    const text = await this.request('POST', '/chat/completions', body, request.signal);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw unavailable(this.name, 'malformed JSON in response', undefined, error);
    }
    const parsed = chatCompletionSchema.safeParse(json);
    if (!parsed.success) throw unavailable(this.name, 'unexpected response shape');
    const choice = parsed.data.choices[0]!;
    const content = choice.message.content?.trim() ?? '';
    if (!content) {
      // An empty answer is a failure, never a reply with nothing in it (soft errors).
      if (choice.finish_reason === 'length')
        throw new AppError('LLM_TOKEN_LIMIT_EXCEEDED', `Token limit exceeded for LLM provider: ${this.name}`, { retryable: false });
      throw unavailable(this.name, `empty completion${choice.finish_reason ? ` (${choice.finish_reason})` : ''}`);
    }
    const usage = parsed.data.usage;
    return {
      text: content,
      ...(usage
        ? { usage: { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens } }
        : {}),
    };
  }

  /** One HTTP exchange under the timeout; resolves with the body of a 2xx answer. */
  private async request(method: 'GET' | 'POST', path: string, body: unknown, callerSignal: AbortSignal | undefined): Promise<string> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs);
    const signal = callerSignal ? AbortSignal.any([callerSignal, timeout]) : timeout;
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    try {
      const response = await this.fetchImpl(`${this.root}${path}`, {
        method,
        headers,
        signal,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      // The body is read under the same signal, so a stalled stream also times out.
      const text = await response.text();
      if (!response.ok) throw translateVendorError(this.name, response.status, response.headers, text);
      return text;
    } catch (error) {
      if (error instanceof AppError) throw error;
      // The caller gave up: not the provider's fault, so not a breaker failure.
      if (callerSignal?.aborted) throw callerSignal.reason;
      if (timeout.aborted) throw unavailable(this.name, `timed out after ${this.options.timeoutMs} ms`, undefined, error);
      throw unavailable(this.name, 'network error', undefined, error);
    }
  }
}

function readKeyFile(file: string | undefined): string | undefined {
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch (error) {
    // Fails the start, naming the variable but not the content.
    throw new AppError(
      'LLM_CONFIGURATION_ERROR',
      `LLM_API_KEY_FILE: cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      { cause: error },
    );
  }
}
