/**
 * The operator's client: sign in with a wallet, then typed methods for the REST routes of
 * the trading routes and agents, bots and keys (agents, keys, trading, DCA, trading
 * configuration, wallets, audit logs, step-up, TOTP), the agent control plane (claim, scopes,
 * key rotation, withdrawal settings), agent cards, the public directory and the legacy bot
 * routes of the legacy routes. Inputs and outputs are the catalog operations' own types
 * (generated). `:userId` trading routes act on the signed-in user's default agent unless
 * `agentId` is given.
 */
import { type AccountOptions, type CallOptions, queryString, seg } from './call-options.js';
import { DirectoryClient } from './directory-client.js';
import { EventSubscription, type SubscribeOptions } from './events/event-subscription.js';
import { sseConnect } from './events/sse-connect.js';
import type { Operations } from './generated/tools.js';
import { GUARDED_OPERATIONS } from './generated/tools.js';
import { HttpTransport, type RetryObserver } from './http-transport.js';
import { type EvmSignInOptions, OperatorSession, type SessionOptions, type SessionUser } from './operator-session.js';
import { resolveRuntime, type SdkRuntimeOptions } from './runtime.js';
import type { EvmSigner, SolanaSigner } from './signers.js';

type Op = keyof Operations;
type In<N extends Op> = Operations[N]['input'];
type Out<N extends Op> = Operations[N]['output'];
/** The body of a route: the operation's input without what travels elsewhere (idempotency header, path parameters). */
type Body<N extends Op, Path extends string = never> = Omit<In<N>, 'idempotencyKey' | Path>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OperatorClientOptions extends SdkRuntimeOptions, SessionOptions {
  /** Where the service is reached, e.g. `https://agents.example.com`. */
  baseUrl: string;
  /** The service's PUBLIC_URL, when it differs from `baseUrl` (its host is the domain wallets sign for). */
  publicUrl?: string;
  /** Renew the access token this long before it expires (ms, default 60 000). */
  refreshBeforeMs?: number;
  onRetry?: RetryObserver;
}

/** Answer of `consoleConfig`. */
export interface ConsoleConfig {
  profile: 'embedded' | 'production';
  /** Whether the console offers "Use a test wallet" (a keypair made in the browser, never for real funds). */
  testWallet: boolean;
}

/** Options of control-plane calls that need a step-up token (`agents.stepUp`). */
export interface StepUpOptions extends CallOptions {
  /** Sent as `X-Step-Up-Token`. */
  stepUpToken?: string;
}

/** Options of `agents.claim`: the EIP-4361 message's chain (1, 8453 or 42161; default 1) for an EVM signer. */
export type ClaimOptions = Omit<EvmSignInOptions, 'statement'>;

/** A control-plane change needs a step-up token (single use). */
type StepUp = StepUpOptions & { stepUpToken: string };

export class OperatorClient {
  readonly session: OperatorSession;
  /** The public directory (no credential; answers kept for `If-None-Match`). */
  readonly directory: DirectoryClient;
  private readonly http: HttpTransport;
  private readonly baseUrl: string;

  constructor(options: OperatorClientOptions) {
    const baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.baseUrl = baseUrl;
    this.http = new HttpTransport(baseUrl, resolveRuntime(options));
    this.http.onRetry = options.onRetry;
    const { sessionCookie, refreshLock, onSessionEnded } = options;
    this.session = new OperatorSession(this.http, (options.publicUrl ?? baseUrl).replace(/\/+$/, ''), options.refreshBeforeMs ?? 60_000, {
      sessionCookie,
      refreshLock,
      onSessionEnded,
    });
    this.directory = new DirectoryClient(options);
  }

  /** Sign in with a Solana wallet (SIWS). */
  signInWithSolana(signer: SolanaSigner, options?: CallOptions): Promise<SessionUser> {
    return this.session.signInWithSolana(signer, options);
  }

  /** Sign in with an EVM wallet (SIWE, EIP-4361), e.g. a viem account. */
  signInWithEthereum(signer: EvmSigner, options?: EvmSignInOptions): Promise<SessionUser> {
    return this.session.signInWithEthereum(signer, options);
  }

  signOut(options?: CallOptions): Promise<void> {
    return this.session.signOut(options);
  }

  /** The session the service's refresh cookie holds (a browser after a reload, or a new tab); undefined when there is none. */
  resume(options?: CallOptions): Promise<SessionUser | undefined> {
    return this.session.resume(options);
  }

  /**
   * The events of one of the operator's agents (its `publicId`) over SSE with the session, read
   * scope: the service lets an agent's owner read its stream (not its tools). Resumed with
   * `Last-Event-ID` across reconnects; the access token is renewed as for every call.
   */
  events(publicId: string, options: SubscribeOptions = {}): EventSubscription {
    const session = this.session;
    return new EventSubscription(
      this.http.runtime,
      {
        token: (o) => session.accessToken(o),
        renewAfterRefusal: async (o) => {
          await session.refresh(o);
          return true;
        },
      },
      sseConnect(this.http, `/mcp/${seg(publicId)}/events/sse`, 45_000),
      options,
    );
  }

  /**
   * What the operator console may offer on this service (public, no session): its profile and
   * whether a test wallet is offered (the embedded profile only).
   */
  async consoleConfig(o: CallOptions = {}): Promise<ConsoleConfig> {
    const answer = await this.http.send({ method: 'GET', path: '/api/nest/console/config', signal: o.signal, timeoutMs: o.timeoutMs });
    return answer.body as ConsoleConfig;
  }

  /** The signed-in user. */
  get user(): SessionUser {
    return this.session.user;
  }

  /** One catalog-bound route: guarded operations get an `X-Idempotency-Key` (one per call, the same on every retry). */
  private async call<N extends Op>(
    operation: N,
    method: Method,
    path: string,
    input: object | undefined,
    options: StepUpOptions & { agentId?: string } = {},
  ): Promise<Out<N>> {
    const { agentId, stepUpToken } = options;
    const inQuery = method === 'GET' || method === 'DELETE';
    const fields = { ...(input ?? {}), ...(agentId === undefined ? {} : { agentId }) };
    const key = GUARDED_OPERATIONS.has(operation) ? (options.idempotencyKey ?? this.http.runtime.uuid()) : undefined;
    const answer = await this.session.request({
      method,
      path: inQuery ? `${path}${queryString(fields)}` : path,
      ...(inQuery ? {} : { body: fields }),
      ...(key || stepUpToken
        ? { headers: () => ({ ...(key ? { 'x-idempotency-key': key } : {}), ...(stepUpToken ? { 'x-step-up-token': stepUpToken } : {}) }) }
        : {}),
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      maxAttempts: options.maxAttempts,
    });
    return answer.body as Out<N>;
  }

  private get me(): string {
    return `/${seg(this.user.id)}`;
  }

  /** Agents the operator owns, their state, audit logs and step-up. */
  readonly agents = {
    create: (input: In<'agent_create'>, o?: CallOptions) => this.call('agent_create', 'POST', '/api/nest/agents', input, o),
    list: (page: In<'agent_list'> = {}, o?: CallOptions) => this.call('agent_list', 'GET', '/api/nest/agents', page, o),
    get: (agentId: string, o?: CallOptions) => this.call('agent_get', 'GET', `/api/nest/agents/${seg(agentId)}`, undefined, o),
    setDefault: (agentId: string, o?: CallOptions) =>
      this.call('agent_default_set', 'PUT', `/api/nest/agents/${seg(agentId)}/default`, {}, o),
    status: (agentId: string, o?: CallOptions) => this.call('agent_status', 'GET', `/api/nest/agents/${seg(agentId)}/status`, undefined, o),
    pause: (agentId: string, o?: CallOptions) => this.call('agent_pause', 'POST', `/api/nest/agents/${seg(agentId)}/pause`, {}, o),
    resume: (agentId: string, o?: CallOptions) => this.call('agent_resume', 'POST', `/api/nest/agents/${seg(agentId)}/resume`, {}, o),
    setTrading: (agentId: string, input: In<'agent_trading_set'>, o?: CallOptions) =>
      this.call('agent_trading_set', 'PUT', `/api/nest/agents/${seg(agentId)}/trading`, input, o),
    logs: (agentId: string, page: In<'audit_log_list'> = {}, o?: CallOptions) =>
      this.call('audit_log_list', 'GET', `/api/nest/agents/${seg(agentId)}/logs`, page, o),
    /** A step-up token (5 minutes, single use) from a TOTP code: for `manage` keys and control-plane routes. */
    stepUp: (agentId: string, input: In<'step_up_issue'>, o?: CallOptions) =>
      this.call('step_up_issue', 'POST', `/api/nest/agents/${seg(agentId)}/control/mcp/step-up`, input, o),
    /** The agent's withdrawal settings (`enabled`, `allowlist`, `dailyCapUsd`, `requireStepUp`); withdrawals are off until switched on. */
    withdrawSettings: (agentId: string, o?: CallOptions) =>
      this.call('agent_withdraw_settings_get', 'GET', `/api/nest/agents/${seg(agentId)}/control/withdraw`, undefined, o),
    /** Replaces them; needs the claim (`agents.claim`) and a step-up token (`agents.stepUp`, single use), sent as `X-Step-Up-Token`. */
    setWithdrawSettings: (agentId: string, input: Body<'agent_withdraw_settings_set', 'stepUpToken'>, o: StepUp) =>
      this.call('agent_withdraw_settings_set', 'PUT', `/api/nest/agents/${seg(agentId)}/control/withdraw`, input, o),
    /**
     * Claims the agent (or verifies the claim): signs a fresh sign-in message naming it with the
     * agent's owner wallet — the onboarding wallet, or for an agent an operator created, that
     * operator's — SIWS for a Solana signer, EIP-4361 for an EVM one. The first claim makes the
     * signed-in operator its owner; the same operator again is a verification (200); another is
     * 409 `Agent already claimed` (`unknown_error`, status 409). Not retried (the nonce is single
     * use): calling it again is safe.
     */
    claim: async (agentId: string, signer: SolanaSigner | EvmSigner, o: ClaimOptions = {}) => {
      const proof = await this.session.signedStatement(signer, `Claim agent ${agentId}`, o);
      return this.call('agent_control_claim', 'POST', `/api/nest/agents/${seg(agentId)}/control/claim`, proof, { ...o, maxAttempts: 1 });
    },
    /** Caps the scope of every key and identity token of the agent (`maxScope`); needs the claim and a step-up token. */
    setScopes: (agentId: string, input: Body<'agent_control_scopes_set', 'stepUpToken'>, o: StepUp) =>
      this.call('agent_control_scopes_set', 'PUT', `/api/nest/agents/${seg(agentId)}/control/scopes`, input, o),
    /** A new key per active key (or `keyId`), same name and scope; the answer carries each new secret, once. Needs the claim and a step-up token. */
    rotateKeys: (agentId: string, input: Body<'agent_control_keys_rotate', 'stepUpToken'>, o: StepUp) =>
      this.call('agent_control_keys_rotate', 'POST', `/api/nest/agents/${seg(agentId)}/control/mcp/keys/rotate`, input, o),
  };

  /** An agent's card (its ERC-8004 registration file): the owner's draft, published to the directory and revoked from it. */
  readonly cards = {
    get: (agentId: string, o?: CallOptions) => this.call('agent_card_get', 'GET', this.card(agentId, ''), undefined, o),
    /** Replaces the draft; the directory shows it after the next `publish`. */
    update: (agentId: string, input: In<'agent_card_update'>, o?: CallOptions) =>
      this.call('agent_card_update', 'PUT', this.card(agentId, ''), input, o),
    publish: (agentId: string, input: In<'agent_card_publish'> = {}, o?: CallOptions) =>
      this.call('agent_card_publish', 'POST', this.card(agentId, '/publish'), input, o),
    revoke: (agentId: string, o?: CallOptions) => this.call('agent_card_revoke', 'POST', this.card(agentId, '/revoke'), {}, o),
  };

  /** Legacy bots (the legacy routes, kept for compatibility): web chat, messaging configuration, platform connectors, fees by channel. */
  readonly bots = {
    create: (input: In<'bot_create'>, o?: CallOptions) => this.call('bot_create', 'POST', '/api/nest/bots', input, o),
    list: (page: In<'bot_list'> = {}, o?: CallOptions) => this.call('bot_list', 'GET', '/api/nest/bots', page, o),
    get: (botId: string, o?: CallOptions) => this.call('bot_get', 'GET', this.bot(botId, ''), undefined, o),
    /** A web chat message to the bot (`ask_bot`, or a trading command when trading is on); `chat_id` keeps a conversation. */
    chat: (botId: string, input: In<'bot_chat'>, o?: CallOptions) => this.call('bot_chat', 'POST', this.bot(botId, '/chat'), input, o),
    telegramConfig: (botId: string, o?: CallOptions) =>
      this.call('bot_telegram_config_get', 'GET', this.bot(botId, '/telegram-config'), undefined, o),
    setTelegramConfig: (botId: string, input: In<'bot_telegram_config_set'>, o?: CallOptions) =>
      this.call('bot_telegram_config_set', 'PUT', this.bot(botId, '/telegram-config'), input, o),
    discordConfig: (botId: string, o?: CallOptions) =>
      this.call('bot_discord_config_get', 'GET', this.bot(botId, '/discord-config'), undefined, o),
    setDiscordConfig: (botId: string, input: In<'bot_discord_config_set'>, o?: CallOptions) =>
      this.call('bot_discord_config_set', 'PUT', this.bot(botId, '/discord-config'), input, o),
    startPlatform: (botId: string, platform: In<'bot_platform_start'>['platform'], o?: CallOptions) =>
      this.call('bot_platform_start', 'POST', this.bot(botId, `/platforms/${seg(platform)}/start`), {}, o),
    stopPlatform: (botId: string, platform: In<'bot_platform_stop'>['platform'], o?: CallOptions) =>
      this.call('bot_platform_stop', 'POST', this.bot(botId, `/platforms/${seg(platform)}/stop`), {}, o),
    /** The bot's chat widget configuration: the origins allowed to embed it, and whether it is on. */
    widgetConfig: (botId: string, o?: CallOptions) =>
      this.call('bot_widget_config_get', 'GET', this.bot(botId, '/widget-config'), undefined, o),
    /** Replaces the fields given (`allowedOrigins`, `enabled`), keeps the others; needs a manage session. */
    setWidgetConfig: (botId: string, input: In<'bot_widget_config_set'>, o?: CallOptions) =>
      this.call('bot_widget_config_set', 'PUT', this.bot(botId, '/widget-config'), input, o),
    /** Client-side events the bot's widgets reported, newest first (the newest 200 are kept). */
    widgetEvents: (botId: string, query: In<'bot_widget_events'> = {}, o?: CallOptions) =>
      this.call('bot_widget_events', 'GET', this.bot(botId, '/widget-events'), query, o),
    /** The address of the widget's embed script for this bot (one `<script src>` on the host page). */
    widgetScriptUrl: (botId: string) => `${this.baseUrl}/api/widget/${seg(botId)}/script.js`,
    /** Venue fees of filled orders by the channel that placed them, between `from` and `to` (ISO 8601). */
    feesByChannel: (botId: string, range: In<'bot_trading_fees_channels'> = {}, o?: CallOptions) =>
      this.call('bot_trading_fees_channels', 'GET', this.bot(botId, '/trading/fees/channels'), range, o),
    /** Changes the fields given (name, description, whether it may trade); the others are kept. */
    update: (botId: string, input: In<'bot_update'>, o?: CallOptions) => this.call('bot_update', 'PATCH', this.bot(botId, ''), input, o),
    remove: (botId: string, o?: CallOptions) => this.call('bot_delete', 'DELETE', this.bot(botId, ''), undefined, o),
    /** Whether the bot answers MCP calls and which tool families it offers, with its keys (a page of them). */
    mcpConfig: (botId: string, page: In<'bot_mcp_config_get'> = {}, o?: CallOptions) =>
      this.call('bot_mcp_config_get', 'GET', this.bot(botId, '/mcp'), page, o),
    setMcpConfig: (botId: string, input: In<'bot_mcp_config_set'>, o?: CallOptions) =>
      this.call('bot_mcp_config_set', 'PUT', this.bot(botId, '/mcp'), input, o),
    /** The audit log of the bot's MCP calls, newest first. */
    logs: (botId: string, page: In<'audit_log_list'> = {}, o?: CallOptions) =>
      this.call('audit_log_list', 'GET', this.bot(botId, '/mcp/logs'), page, o),
    /** A step-up token (5 minutes, single use) from a TOTP code: for the bot's `manage` keys. */
    stepUp: (botId: string, input: In<'step_up_issue'>, o?: CallOptions) =>
      this.call('step_up_issue', 'POST', this.bot(botId, '/mcp/step-up'), input, o),
  };

  /** A legacy bot's API keys, as an agent's (`keys`): the secret of a new one is in the answer, once; a `manage` key needs `bots.stepUp`. */
  readonly botKeys = {
    /** The bot's keys (read from its MCP settings, where the service keeps them), in the shape of `keys.list`. */
    list: async (botId: string, page: In<'bot_mcp_config_get'> = {}, o?: CallOptions): Promise<Out<'agent_keys_list'>> => {
      const { keys, nextCursor } = await this.bots.mcpConfig(botId, page, o);
      return { items: keys, ...(nextCursor === undefined ? {} : { nextCursor }) };
    },
    create: (botId: string, input: In<'agent_keys_create'>, o?: CallOptions) =>
      this.call('agent_keys_create', 'POST', this.bot(botId, '/mcp/keys'), input, o),
    revoke: (botId: string, keyId: string, o?: CallOptions) =>
      this.call('agent_keys_revoke', 'DELETE', this.bot(botId, `/mcp/keys/${seg(keyId)}`), undefined, o),
  };

  /** A legacy bot's agent card, as an agent's (`cards`): the owner's draft, published to the directory and revoked from it. */
  readonly botCards = {
    get: (botId: string, o?: CallOptions) => this.call('agent_card_get', 'GET', this.bot(botId, '/agent-card'), undefined, o),
    update: (botId: string, input: In<'agent_card_update'>, o?: CallOptions) =>
      this.call('agent_card_update', 'PUT', this.bot(botId, '/agent-card'), input, o),
    publish: (botId: string, input: In<'agent_card_publish'> = {}, o?: CallOptions) =>
      this.call('agent_card_publish', 'POST', this.bot(botId, '/agent-card/publish'), input, o),
    revoke: (botId: string, o?: CallOptions) => this.call('agent_card_revoke', 'POST', this.bot(botId, '/agent-card/revoke'), {}, o),
  };

  /** An agent's API keys; the secret of a new one is in the answer, once. */
  readonly keys = {
    list: (agentId: string, page: In<'agent_keys_list'> = {}, o?: CallOptions) =>
      this.call('agent_keys_list', 'GET', `/api/nest/agents/${seg(agentId)}/keys`, page, o),
    create: (agentId: string, input: In<'agent_keys_create'>, o?: CallOptions) =>
      this.call('agent_keys_create', 'POST', `/api/nest/agents/${seg(agentId)}/keys`, input, o),
    revoke: (agentId: string, keyId: string, o?: CallOptions) =>
      this.call('agent_keys_revoke', 'DELETE', `/api/nest/agents/${seg(agentId)}/keys/${seg(keyId)}`, undefined, o),
  };

  /**
   * OAuth for MCP: the pending authorization request the consent page shows, the consent
   * itself (approve for an agent and scope, `manage` with the authenticator code; or deny),
   * and an agent's grants beside its keys. Both consent answers carry `redirectTo`: send the
   * browser there.
   */
  readonly oauth = {
    authorization: (authorizationId: string, o?: CallOptions) =>
      this.call('oauth_authorization_get', 'GET', `/api/nest/oauth/authorizations/${seg(authorizationId)}`, undefined, o),
    consent: (input: In<'oauth_consent'>, o?: CallOptions) => this.call('oauth_consent', 'POST', '/api/nest/oauth/consent', input, o),
    grants: (agentId: string, o?: CallOptions) =>
      this.call('agent_oauth_grants_list', 'GET', `/api/nest/agents/${seg(agentId)}/oauth-grants`, undefined, o),
    revokeGrant: (agentId: string, grantId: string, o?: CallOptions) =>
      this.call('agent_oauth_grants_revoke', 'DELETE', `/api/nest/agents/${seg(agentId)}/oauth-grants/${seg(grantId)}`, undefined, o),
  };

  /** TOTP enrolment (for step-up). */
  readonly totp = {
    enroll: async (o: CallOptions = {}) =>
      (await this.session.request({ method: 'POST', path: '/api/nest/auth/totp/enroll', signal: o.signal, timeoutMs: o.timeoutMs }))
        .body as { secret: string; otpauthUrl: string },
    activate: async (code: string, o: CallOptions = {}) =>
      (
        await this.session.request({
          method: 'POST',
          path: '/api/nest/auth/totp/activate',
          body: { code },
          signal: o.signal,
          timeoutMs: o.timeoutMs,
        })
      ).body as { active: true },
  };

  /** Orders, positions, commands, EVM quotes and swaps, research, the paper faucet. */
  readonly trading = {
    command: (input: Body<'trading_command'>, o?: AccountOptions) =>
      this.call('trading_command', 'POST', '/api/nest/trading/command', input, o),
    approvals: (page: In<'trading_approvals_list'> = {}, o?: AccountOptions) =>
      this.call('trading_approvals_list', 'GET', `/api/nest/trading/approvals${this.me}`, page, o),
    approveOrder: (orderId: string, o?: AccountOptions) =>
      this.call('trading_orders_approve', 'POST', `/api/nest/trading/orders${this.me}/${seg(orderId)}/approve`, {}, o),
    cancelOrder: (orderId: string, o?: AccountOptions) =>
      this.call('trading_orders_cancel', 'POST', `/api/nest/trading/orders${this.me}/${seg(orderId)}/cancel`, {}, o),
    orders: (query: In<'trading_orders_list'> = {}, o?: AccountOptions) =>
      this.call('trading_orders_list', 'GET', `/api/nest/trading/orders${this.me}`, query, o),
    positions: (o?: AccountOptions) => this.call('trading_positions', 'GET', `/api/nest/trading/positions${this.me}`, undefined, o),
    pnl: (o?: AccountOptions) => this.call('trading_positions_pnl', 'GET', `/api/nest/trading/positions${this.me}/pnl`, undefined, o),
    /** The portfolio's value over time as the service recorded it (default: the last 7 days, at most 200 points). */
    history: (query: In<'trading_portfolio_history'> = {}, o?: AccountOptions) =>
      this.call('trading_portfolio_history', 'GET', `/api/nest/trading/positions${this.me}/history`, query, o),
    evmStatus: (o?: CallOptions) => this.call('trading_evm_status', 'GET', '/api/nest/trading/evm/status', undefined, o),
    evmQuote: (input: In<'trading_evm_quote'>, o?: AccountOptions) =>
      this.call('trading_evm_quote', 'POST', `/api/nest/trading/evm/quote${this.me}`, input, o),
    evmSwap: (input: Body<'trading_evm_swap'>, o?: AccountOptions) =>
      this.call('trading_evm_swap', 'POST', `/api/nest/trading/evm/swap${this.me}`, input, o),
    research: (input: In<'trading_research_token'>, o?: AccountOptions) =>
      this.call('trading_research_token', 'POST', '/api/nest/trading/research/token', input, o),
    /** Paper venue only: play money into the agent's custodial wallet. */
    paperFaucet: (input: In<'trading_paper_faucet'>, o?: AccountOptions) =>
      this.call('trading_paper_faucet', 'POST', `/api/nest/trading/paper/faucet${this.me}`, input, o),
  };

  /** DCA strategies. */
  readonly dca = {
    list: (page: In<'trading_dca_strategies_list'> = {}, o?: AccountOptions) =>
      this.call('trading_dca_strategies_list', 'GET', `/api/nest/trading/strategies${this.me}`, page, o),
    create: (input: In<'trading_dca_strategy_create'>, o?: AccountOptions) =>
      this.call('trading_dca_strategy_create', 'POST', `/api/nest/trading/strategies${this.me}`, input, o),
    remove: (strategyName: string, o?: AccountOptions) =>
      this.call('trading_dca_strategy_delete', 'DELETE', `/api/nest/trading/strategies${this.me}/${seg(strategyName)}`, undefined, o),
    approve: (strategyName: string, o?: AccountOptions) =>
      this.call('trading_dca_strategy_approve', 'POST', `/api/nest/trading/strategies${this.me}/${seg(strategyName)}/approve`, {}, o),
    pause: (input: In<'trading_dca_pause'> = {}, o?: AccountOptions) =>
      this.call('trading_dca_pause', 'POST', `/api/nest/trading/dca/pause${this.me}`, input, o),
    resume: (input: In<'trading_dca_resume'> = {}, o?: AccountOptions) =>
      this.call('trading_dca_resume', 'POST', `/api/nest/trading/dca/resume${this.me}`, input, o),
    stats: (o?: AccountOptions) => this.call('trading_dca_stats', 'GET', `/api/nest/trading/dca/stats${this.me}`, undefined, o),
  };

  /** Trading configuration of an agent. */
  readonly config = {
    get: (o?: AccountOptions) => this.call('trading_config_get', 'GET', this.cfg(''), undefined, o),
    orderProfile: (o?: AccountOptions) =>
      this.call('trading_config_order_profile_get', 'GET', this.cfg('/default-order-profile'), undefined, o),
    setOrderProfile: (input: In<'trading_config_order_profile_set'>, o?: AccountOptions) =>
      this.call('trading_config_order_profile_set', 'PUT', this.cfg('/default-order-profile'), input, o),
    setTradeDefaults: (input: In<'trading_config_trade_defaults_set'>, o?: AccountOptions) =>
      this.call('trading_config_trade_defaults_set', 'PUT', this.cfg('/trade-defaults'), input, o),
    setRiskPolicy: (input: In<'trading_config_risk_policy_set'>, o?: AccountOptions) =>
      this.call('trading_config_risk_policy_set', 'PUT', this.cfg('/risk-policy'), input, o),
    setNotifications: (input: In<'trading_config_notifications_set'>, o?: AccountOptions) =>
      this.call('trading_config_notifications_set', 'PUT', this.cfg('/notifications'), input, o),
    setWalletMode: (input: In<'trading_config_wallet_mode_set'>, o?: AccountOptions) =>
      this.call('trading_config_wallet_mode_set', 'PUT', this.cfg('/wallet-mode'), input, o),
    favorites: (page: In<'trading_config_favorites_list'> = {}, o?: AccountOptions) =>
      this.call('trading_config_favorites_list', 'GET', this.cfg('/favorites'), page, o),
    addFavorite: (input: In<'trading_config_favorites_add'>, o?: AccountOptions) =>
      this.call('trading_config_favorites_add', 'POST', this.cfg('/favorites'), input, o),
    removeFavorite: ({ address, ...query }: In<'trading_config_favorites_remove'>, o?: AccountOptions) =>
      this.call('trading_config_favorites_remove', 'DELETE', this.cfg(`/favorites/${seg(address)}`), query, o),
    blacklist: (page: In<'trading_config_blacklist_list'> = {}, o?: AccountOptions) =>
      this.call('trading_config_blacklist_list', 'GET', this.cfg('/blacklist'), page, o),
    addToBlacklist: (input: In<'trading_config_blacklist_add'>, o?: AccountOptions) =>
      this.call('trading_config_blacklist_add', 'POST', this.cfg('/blacklist'), input, o),
    removeFromBlacklist: ({ address, ...query }: In<'trading_config_blacklist_remove'>, o?: AccountOptions) =>
      this.call('trading_config_blacklist_remove', 'DELETE', this.cfg(`/blacklist/${seg(address)}`), query, o),
    setPoolPreferences: (input: In<'trading_config_pool_preferences_set'>, o?: AccountOptions) =>
      this.call('trading_config_pool_preferences_set', 'PUT', this.cfg('/pool-preferences'), input, o),
    toggleLaunchpad: ({ type, ...input }: In<'trading_config_launchpad_toggle'>, o?: AccountOptions) =>
      this.call('trading_config_launchpad_toggle', 'PUT', this.cfg(`/launchpads/${seg(type)}/toggle`), input, o),
    setLaunchpadPriority: ({ type, ...input }: In<'trading_config_launchpad_priority_set'>, o?: AccountOptions) =>
      this.call('trading_config_launchpad_priority_set', 'PUT', this.cfg(`/launchpads/${seg(type)}/priority`), input, o),
  };

  /** Custodial, external and delegate wallets; EVM token approvals. */
  readonly wallets = {
    custodial: (query: In<'trading_wallet_custodial_get'> = {}, o?: AccountOptions) =>
      this.call('trading_wallet_custodial_get', 'GET', `/api/nest/trading/wallets/custodial${this.me}`, query, o),
    ensureCustodial: (input: Body<'trading_wallet_custodial_ensure'> = {}, o?: AccountOptions) =>
      this.call('trading_wallet_custodial_ensure', 'POST', `/api/nest/trading/wallets/custodial${this.me}`, input, o),
    evmList: (page: In<'trading_evm_wallets_list'> = {}, o?: AccountOptions) =>
      this.call('trading_evm_wallets_list', 'GET', this.evm(''), page, o),
    evmAdd: (input: In<'trading_evm_wallet_add'>, o?: AccountOptions) =>
      this.call('trading_evm_wallet_add', 'POST', this.evm(''), input, o),
    evmCreateCustodial: (input: Body<'trading_evm_wallet_create_custodial'> = {}, o?: AccountOptions) =>
      this.call('trading_evm_wallet_create_custodial', 'POST', this.evm('/custodial'), input, o),
    evmCreateDelegate: (input: Body<'trading_evm_wallet_create_delegate'>, o?: AccountOptions) =>
      this.call('trading_evm_wallet_create_delegate', 'POST', this.evm('/delegate'), input, o),
    evmSetDefault: (input: In<'trading_evm_wallet_set_default'>, o?: AccountOptions) =>
      this.call('trading_evm_wallet_set_default', 'POST', this.evm('/default'), input, o),
    evmRevoke: (walletId: string, o?: AccountOptions) =>
      this.call('trading_evm_wallet_revoke', 'DELETE', this.evm(`/${seg(walletId)}`), undefined, o),
    recordApproval: (input: Body<'trading_evm_approval_record'>, o?: AccountOptions) =>
      this.call('trading_evm_approval_record', 'POST', `/api/nest/trading/approvals${this.me}`, input, o),
    revokeApproval: (input: Body<'trading_evm_approval_revoke'>, o?: AccountOptions) =>
      this.call('trading_evm_approval_revoke', 'POST', `/api/nest/trading/revoke${this.me}`, input, o),
  };

  private card(agentId: string, rest: string): string {
    return `/api/nest/agents/${seg(agentId)}/card${rest}`;
  }

  private bot(botId: string, rest: string): string {
    return `/api/nest/bots/${seg(botId)}${rest}`;
  }

  private cfg(rest: string): string {
    return `/api/nest/trading/config${this.me}${rest}`;
  }

  private evm(rest: string): string {
    return `/api/nest/trading/evm/wallets${this.me}${rest}`;
  }
}
