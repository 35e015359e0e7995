/**
 * An agent's client: MCP tools (the MCP routes) with the catalog's generated types, the event
 * stream (SSE or WebSocket), and the agent wallet routes (the agent wallet and control-plane routes). It authenticates
 * with an API key or an identity token that it renews before expiry.
 */
import { type AgentCredential, apiKey, IdentityTokenCredential, type Onboarding } from './agent-credentials.js';
import type { CallOptions } from './call-options.js';
import { SdkError } from './errors.js';
import { EventSubscription, type SubscribeOptions } from './events/event-subscription.js';
import { sseConnect } from './events/sse-connect.js';
import { type WebSocketConstructor, wsConnect } from './events/ws-connect.js';
import { GUARDED_OPERATIONS, type Operations, type ToolName } from './generated/tools.js';
import { describeFailure, type HttpRequest, HttpTransport, type RetryObserver } from './http-transport.js';
import { resolveRuntime, type SdkRuntimeOptions } from './runtime.js';
import { seg } from './call-options.js';

export type ToolInput<N extends ToolName> = Operations[N]['input'];
export type ToolOutput<N extends ToolName> = Operations[N]['output'];

/** A tool as `tools/list` describes it. */
export interface ToolDescriptor {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean };
}

export interface AgentClientOptions extends SdkRuntimeOptions {
  baseUrl: string;
  /** An API key (`mcpk_…`) of the agent. */
  apiKey?: string;
  /** Or: onboard for an identity token (`siweOnboarding`, `providerOnboarding`), renewed before expiry. */
  identity?: Onboarding;
  /** Renew identity tokens this long before `exp` (ms; at most a fifth of their lifetime), default 60 000. */
  renewBeforeMs?: number;
  /** The agent's public id (`/mcp/:publicId`); an identity token names it, an API key does not. */
  publicId?: string;
  /** The WebSocket of `subscribeWebSocket` (default `globalThis.WebSocket`; on Node 20, pass the `ws` package's). */
  WebSocket?: WebSocketConstructor;
  /** Drop an event stream that sent nothing for this long (ms, default 45 000: the service sends a comment every 15 s). */
  streamIdleTimeoutMs?: number;
  onRetry?: RetryObserver;
}

interface JsonRpcAnswer {
  jsonrpc?: unknown;
  result?: {
    content?: Array<{ type: string; text?: string }>;
    structuredContent?: unknown;
    isError?: boolean;
    tools?: ToolDescriptor[];
    nextCursor?: string;
  };
  error?: { code: number; message: string; data?: unknown };
}

export class AgentClient {
  readonly credential: AgentCredential;
  private readonly http: HttpTransport;
  private readonly explicitPublicId: string | undefined;

  constructor(private readonly options: AgentClientOptions) {
    this.http = new HttpTransport(options.baseUrl.replace(/\/+$/, ''), resolveRuntime(options));
    this.http.onRetry = options.onRetry;
    this.explicitPublicId = options.publicId;
    if (options.apiKey) this.credential = apiKey(options.apiKey);
    else if (options.identity)
      this.credential = new IdentityTokenCredential(this.http, this.http.runtime.clock, {
        onboarding: options.identity,
        ...(options.renewBeforeMs === undefined ? {} : { renewBeforeMs: options.renewBeforeMs }),
      });
    else throw new TypeError('AgentClient needs apiKey or identity');
  }

  /** The identity-token credential (its token, `renewAt`, `revoke()`), or undefined with an API key. */
  get identityToken(): IdentityTokenCredential | undefined {
    return this.credential instanceof IdentityTokenCredential ? this.credential : undefined;
  }

  /** The agent's public id: given, or named by the identity token (after the first call). */
  async publicId(options: CallOptions = {}): Promise<string> {
    if (this.explicitPublicId) return this.explicitPublicId;
    await this.credential.token(options);
    const named = this.credential.publicId?.();
    if (!named) throw new TypeError('AgentClient needs publicId with an API key');
    return named;
  }

  /** Every tool this credential may call (all pages). */
  async listTools(options: CallOptions = {}): Promise<ToolDescriptor[]> {
    const tools: ToolDescriptor[] = [];
    let cursor: string | undefined;
    do {
      const result = await this.rpc('tools/list', cursor ? { cursor } : {}, options);
      tools.push(...(result.tools ?? []));
      cursor = result.nextCursor;
    } while (cursor);
    return tools;
  }

  /**
   * Calls a tool with its typed input; answers its typed output. Tools that move funds get an
   * `idempotencyKey` (a fresh UUID v4 unless given), the same on every retry of this call.
   * A tool's refusal (an error result) is `execution_error` with the service's message and code
   * (`serverCode`), and `retryAfter` when the service said when to try again; never retried.
   */
  async callTool<N extends ToolName>(name: N, input: ToolInput<N>, options: CallOptions = {}): Promise<ToolOutput<N>> {
    return (await this.callAnyTool(name, input as Record<string, unknown>, options)) as ToolOutput<N>;
  }

  /** A tool the generated types do not know yet (the catalog is dynamic): untyped input and output. */
  async callAnyTool(name: string, input: Record<string, unknown> = {}, options: CallOptions = {}): Promise<unknown> {
    const args =
      GUARDED_OPERATIONS.has(name) && input.idempotencyKey === undefined
        ? { ...input, idempotencyKey: options.idempotencyKey ?? this.http.runtime.uuid() }
        : input;
    const result = await this.rpc('tools/call', { name, arguments: args }, options);
    const text = result.content?.find((item) => item.type === 'text')?.text;
    if (result.isError) throw toolRefusal(name, result, text);
    if (result.structuredContent !== undefined) return result.structuredContent;
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }

  /** The agent's event stream over SSE (fetch streaming), resumed with `Last-Event-ID` across reconnects. */
  subscribe(options: SubscribeOptions = {}): EventSubscription {
    const idleMs = this.options.streamIdleTimeoutMs ?? 45_000;
    return new EventSubscription(
      this.http.runtime,
      this.credential,
      async (args) => sseConnect(this.http, `/mcp/${seg(await this.publicId({ signal: args.signal }))}/events/sse`, idleMs)(args),
      options,
    );
  }

  /**
   * The same stream over WebSocket: the one given here, else the client's `WebSocket` option,
   * else `globalThis.WebSocket` (browsers, Node 22+; on Node 20 pass the `ws` package's).
   */
  subscribeWebSocket(options: SubscribeOptions & { WebSocket?: WebSocketConstructor } = {}): EventSubscription {
    const { WebSocket: given, ...subscribe } = options;
    const WebSocketImpl = given ?? this.options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocketImpl) {
      throw new TypeError(
        "No WebSocket available: pass one, as subscribeWebSocket({ WebSocket }) or new AgentClient({ WebSocket }) (on Node 20: import { WebSocket } from 'ws')",
      );
    }
    const wsBase = this.http.baseUrl.replace(/^http/, 'ws');
    return new EventSubscription(
      this.http.runtime,
      this.credential,
      async (args) => wsConnect(WebSocketImpl, `${wsBase}/mcp/${seg(await this.publicId({ signal: args.signal }))}/events/ws`)(args),
      subscribe,
    );
  }

  /** Agent wallet (the agent wallet and control-plane routes, agent control plane): `{ wallets }`, each chain's custodial wallet and token balances. */
  async walletBalance(options: CallOptions = {}): Promise<WalletBalance> {
    return (await this.rest({ method: 'GET', path: '/api/nest/agents/wallet/balance' }, options)) as WalletBalance;
  }

  /**
   * Withdraws from the EVM custodial wallet (201 with the withdrawal). Guarded by an idempotency
   * key, the same on every retry: a retry after a lost answer gets the first call's withdrawal, never a second one.
   */
  async withdrawEvm(input: WithdrawEvmInput, options: WithdrawOptions = {}): Promise<Withdrawal> {
    return (await this.rest({ method: 'POST', path: '/api/nest/agents/wallet/withdraw/evm', body: input }, options, true)) as Withdrawal;
  }

  /** Withdraws SOL or an SPL token from the Solana custodial wallet; guarded as `withdrawEvm` is. */
  async withdrawSolana(input: WithdrawSolanaInput, options: WithdrawOptions = {}): Promise<Withdrawal> {
    return (await this.rest({ method: 'POST', path: '/api/nest/agents/wallet/withdraw/solana', body: input }, options, true)) as Withdrawal;
  }

  private async rest(request: Pick<HttpRequest, 'method' | 'path' | 'body'>, options: WithdrawOptions, guarded = false): Promise<unknown> {
    const key = guarded ? (options.idempotencyKey ?? this.http.runtime.uuid()) : undefined;
    const answer = await this.authorized({
      ...request,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxAttempts: options.maxAttempts,
      headers: () => ({
        ...(key ? { 'x-idempotency-key': key } : {}),
        ...(options.stepUpToken ? { 'x-step-up-token': options.stepUpToken } : {}),
      }),
    });
    return answer.body;
  }

  /** A request with the bearer of the moment; a 401 renews a renewable credential once and tries again. */
  private async authorized(request: HttpRequest) {
    const extra = request.headers;
    const withToken: HttpRequest = {
      ...request,
      headers: async () => ({
        authorization: `Bearer ${await this.credential.token({ signal: request.signal } as CallOptions)}`,
        ...(await extra?.()),
      }),
    };
    try {
      return await this.http.send(withToken);
    } catch (error) {
      if (
        error instanceof SdkError &&
        error.code === 'auth_error' &&
        (await this.credential.renewAfterRefusal({ signal: request.signal } as CallOptions))
      ) {
        return this.http.send(withToken);
      }
      throw error;
    }
  }

  /** One JSON-RPC exchange; its answer must be a JSON-RPC 2.0 response, else `invalid_response`. */
  private async rpc(method: string, params: Record<string, unknown>, options: CallOptions): Promise<NonNullable<JsonRpcAnswer['result']>> {
    const publicId = await this.publicId(options);
    const id = this.http.runtime.uuid();
    const answer = await this.authorized({
      method: 'POST',
      path: `/mcp/${seg(publicId)}`,
      body: { jsonrpc: '2.0', id, method, params },
      headers: () => ({ accept: 'application/json, text/event-stream' }),
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxAttempts: options.maxAttempts,
    });
    const body = answer.body as JsonRpcAnswer;
    if (typeof body !== 'object' || body === null || body.jsonrpc !== '2.0' || (body.result === undefined && body.error === undefined)) {
      throw new SdkError('invalid_response', { status: answer.status, message: 'The answer is not a JSON-RPC 2.0 response', body });
    }
    if (body.error) {
      // -32603 is a tool that failed while running (7.5): an execution error; the others are requests the service could not take.
      const code = body.error.code === -32603 ? 'execution_error' : 'unknown_error';
      throw new SdkError(code, { status: answer.status, message: body.error.message, serverCode: body.error.code, body });
    }
    return body.result!;
  }
}

/**
 * A tool's error result as `execution_error` (never retried): the service's refusal shape,
 * `structuredContent` `{code, message, retryable, retryAfter?}` with the message as the text;
 * older services sent `{code, message}` as JSON text, and any other text is the message itself.
 */
function toolRefusal(name: string, result: NonNullable<JsonRpcAnswer['result']>, text: string | undefined): SdkError {
  const refusal =
    isRecord(result.structuredContent) && typeof result.structuredContent.code === 'string' ? result.structuredContent : undefined;
  let detail: unknown = refusal;
  if (detail === undefined && text !== undefined) {
    try {
      detail = JSON.parse(text);
    } catch {
      // Plain text: the message itself.
    }
  }
  const { message, serverCode } = describeFailure(isRecord(detail) ? { error: detail } : undefined, text ?? `Tool ${name} failed`);
  const retryAfter = typeof refusal?.retryAfter === 'number' ? refusal.retryAfter : undefined;
  return new SdkError('execution_error', {
    status: 200,
    message,
    body: result,
    ...(serverCode === undefined ? {} : { serverCode }),
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export interface WithdrawOptions extends CallOptions {
  /** When withdrawal settings ask for step-up (`requireStepUp`): the token from the step-up route. */
  stepUpToken?: string;
}

/** `GET /api/nest/agents/wallet/balance`: amounts in base units, `valueUsd` null when the venue has no price. */
export type WalletBalance = ToolOutput<'agent_wallet_balance'>;

/** The body of the withdraw routes: the operation's input without what travels as headers (idempotency key, step-up token). */
export type WithdrawEvmInput = Omit<ToolInput<'agent_wallet_withdraw_evm'>, 'idempotencyKey' | 'stepUpToken'>;
export type WithdrawSolanaInput = Omit<ToolInput<'agent_wallet_withdraw_solana'>, 'idempotencyKey' | 'stepUpToken'>;

/** A withdrawal: `requested` → `signed` → `broadcast` → `confirmed` | `failed` (with `reason`). */
export type Withdrawal = ToolOutput<'agent_wallet_withdraw_solana'>;
