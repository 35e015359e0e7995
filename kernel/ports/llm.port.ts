/**
 * LLM port: one chat completion, nothing else. `agents/` phrases replies through it and
 * never learns which vendor (if any) answers.
 *
 * Error semantics: an adapter throws only `AppError` with one of these codes, so callers
 * decide what to do next from the code alone:
 * - `LLM_CONFIGURATION_ERROR` (500): credentials, model or request rejected; a person must fix config.
 * - `LLM_RATE_LIMIT_EXCEEDED` (429): throttled; `retryAfterSeconds` says when to try again.
 * - `LLM_TOKEN_LIMIT_EXCEEDED` (413): prompt or completion exceeds the model's limit; shorten.
 * - `LLM_PROVIDER_UNAVAILABLE` (503): 5xx, network error, timeout or an unreadable answer; retryable.
 * - `LLM_CIRCUIT_BREAKER_OPEN` (503): too many recent failures, the call was not attempted;
 *   message `Circuit breaker open for provider: <name>`, `retryAfterSeconds` until the probe.
 * An aborted caller `signal` rejects with the signal's reason (not an `AppError`).
 */

export interface LlmMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface LlmRequest {
  /** Instructions and facts; adapters send it as the system message. */
  system: string;
  messages: LlmMessage[];
  /** Upper bound of completion tokens; adapters apply their own default when absent. */
  maxTokens?: number;
  /** Cancels the call when the caller no longer needs the answer. */
  signal?: AbortSignal;
}

export interface LlmUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface LlmCompletion {
  /** Never empty: an adapter treats an empty answer as a failure, not as a reply. */
  text: string;
  usage?: LlmUsage;
}

export interface LlmPort {
  /** Provider name for logs and error messages, e.g. `embedded` or the model's host. */
  readonly name: string;
  complete(request: LlmRequest): Promise<LlmCompletion>;
  /** Resolves when the provider answers (readiness); throws the codes above otherwise. */
  ping?(): Promise<void>;
}

/**
 * Structured facts travel inside the system prompt between these markers as JSON, so a
 * generative model reads them as context and a deterministic adapter (the embedded one)
 * answers from them without parsing prose: callers never branch on the adapter.
 */
const LLM_FACTS_OPEN = '<facts>';
const LLM_FACTS_CLOSE = '</facts>';

/** What a caller knows for sure; `draft` is the complete templated reply. */
export interface LlmFacts {
  intent: string;
  draft: string;
  data?: unknown;
}

/** The facts block to embed in a system prompt. */
export function renderLlmFacts(facts: LlmFacts): string {
  // `<` is escaped so that user-supplied text inside the JSON cannot close the block early.
  return `${LLM_FACTS_OPEN}${JSON.stringify(facts).replaceAll('<', '\\u003c')}${LLM_FACTS_CLOSE}`;
}

/** The last facts block of a system prompt, or undefined when there is none or it is malformed. */
export function readLlmFacts(system: string): LlmFacts | undefined {
  const end = system.lastIndexOf(LLM_FACTS_CLOSE);
  const start = end < 0 ? -1 : system.lastIndexOf(LLM_FACTS_OPEN, end);
  if (start < 0) return undefined;
  try {
    const parsed: unknown = JSON.parse(system.slice(start + LLM_FACTS_OPEN.length, end));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { intent, draft } = parsed as Record<string, unknown>;
    return typeof intent === 'string' && typeof draft === 'string' ? (parsed as LlmFacts) : undefined;
  } catch {
    return undefined;
  }
}
