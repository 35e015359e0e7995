import type { z } from 'zod';
import type { BotChat, ChatAnswer } from '../../agents/chat/bot-chat.js';
import type { BotContext } from '../../machines/bot.machine.js';
import { userIdOfWallet } from '../accounts/users.service.js';
import { WIDGET_SIGN_IN_STATEMENT } from '../auth/wallet/message-purpose.js';
import type { WalletLoginService } from '../auth/wallet/wallet-login.service.js';
import { AppError } from '../../kernel/errors/app-error.js';
import type { WidgetMetrics } from '../observability/widget.metrics.js';
import type { ActorCollection, ActorView } from '../../kernel/ports/actor-collection.port.js';
import { statusOfView } from '../../agents/portfolio/status-reader.js';
import type { WidgetConfigs } from './widget-config.service.js';
import type { WidgetEvents } from './widget-events.service.js';
import { originNotAllowed, WIDGET_MESSAGES } from './widget-messages.js';
import { normalizeOrigin, originAllowed } from './widget-origins.js';
import type { WidgetSession, WidgetSessions } from './widget-sessions.service.js';
import type { widgetChallengeSchema, widgetChatSchema, widgetSignInSchema } from './widget.schemas.js';
import type { WidgetCaller } from '../operations/operation.types.js';

export interface WidgetDeps {
  configs: WidgetConfigs;
  sessions: WidgetSessions;
  events: WidgetEvents;
  chat: Pick<BotChat, 'send'>;
  bots: Pick<ActorCollection<BotContext>, 'get'>;
  wallet: Pick<WalletLoginService, 'startSolana' | 'startEvmMessage' | 'prove'>;
  metrics: WidgetMetrics;
}

/**
 * The public chat widget of a legacy bot (the legacy routes, chat widget): sessions
 * started only from the bot's allowed origins, chat through the bot's one chat core (the web
 * chat's), trading only after the bot owner's wallet sign-in inside the widget.
 */
export class WidgetService {
  constructor(private readonly deps: WidgetDeps) {}

  /**
   * Whether `origin` may talk to `botId`'s widget: a live bot, its widget on, the origin
   * listed. CORS answers follow it; anything else is one refusal, `Origin not allowed`,
   * which tells a page nothing about which bots exist.
   */
  async allows(botId: string, origin: string | undefined): Promise<boolean> {
    return (await this.admit(botId, origin)) !== null;
  }

  /** `allows`, answered with the bot as read for it (null when not allowed): the request's later steps take it from here. */
  async admit(botId: string, origin: string | undefined): Promise<ActorView<BotContext> | null> {
    if (!origin) return null;
    const [config, bot] = await Promise.all([this.deps.configs.get(botId), this.deps.bots.get(botId)]);
    return config.enabled && bot?.status === 'active' && originAllowed(origin, config.allowedOrigins) ? bot : null;
  }

  async init(botId: string, origin: string | undefined): Promise<{ sessionToken: string; expiresAt: string }> {
    if (!(await this.allows(botId, origin))) {
      this.deps.metrics.observeInit('refused');
      throw originNotAllowed();
    }
    const { sessionToken, expiresAt } = await this.deps.sessions.start(botId, normalizeOrigin(origin!)!);
    this.deps.metrics.observeInit('started');
    return { sessionToken, expiresAt };
  }

  /**
   * The session a request carries, on the page origin it was started from and still allowed.
   * `allowed`: what `allows` answered for this same request's bot and origin (its CORS check),
   * so the bot and its widget settings are not read twice for one request; absent, read now.
   */
  async session(botId: string, token: string | undefined, origin: string | undefined, allowed?: boolean): Promise<WidgetSession> {
    const session = await this.deps.sessions.resolve(botId, token);
    if (!origin || normalizeOrigin(origin) !== session.origin) throw originNotAllowed();
    if (!(allowed ?? (await this.allows(botId, origin)))) throw originNotAllowed();
    return session;
  }

  /** One message to the bot; trading commands run only in a session its owner signed in to (the `widget_chat` operation). */
  async chat(session: WidgetCaller, input: z.infer<typeof widgetChatSchema>): Promise<ChatAnswer> {
    // The bot as this request's origin check read it, else read now.
    const view = session.bot?.id === session.botId ? session.bot : await this.botView(session.botId);
    const bot = view.context;
    return this.deps.chat.send({
      subject: { type: 'bot', id: bot.botId },
      userId: bot.ownerId,
      channel: 'widget',
      chatId: chatIdOf(session),
      message: input.message,
      mayTrade: session.owner,
      refuseTrade: WIDGET_MESSAGES.signInToTrade,
      // The owner signed in with their wallet, as on the console: a session's trading scope. The bot on its
      // own channel: the catalog's rules as for its MCP key, its disabled categories included.
      caller: { kind: 'bot', scope: 'trade', disabledFamilies: bot.mcp.disabledCategories },
      // Just read (this request); the safety path reads it again before any order.
      account: statusOfView({ type: 'bot', id: bot.botId }, view),
      ...(input.message_id ? { messageId: input.message_id } : {}),
    });
  }

  /** A client-side event of a session's widget (the `widget_event` operation). */
  async event(session: WidgetCaller, input: { type: 'open' | 'close' | 'message_shown' | 'error'; detail?: string }): Promise<void> {
    await this.deps.events.record(session.botId, {
      type: input.type,
      ...(input.detail ? { detail: input.detail } : {}),
      session: chatIdOf(session),
      origin: session.origin,
    });
  }

  /**
   * The sign-in message for the wallet the widget found (SIWS, or EIP-4361 built here), its
   * nonce bound to that wallet. It names the session's origin, the shop page the wallet sees
   * asking: a wallet compares the message's domain with that page and would call the
   * service's own domain a deceptive request. Its statement makes it a widget sign-in, which
   * no other route takes.
   */
  challenge(
    session: Pick<WidgetSession, 'origin'>,
    input: z.infer<typeof widgetChallengeSchema>,
  ): Promise<{ nonce: string; expiresAt: string; message: string }> {
    return input.chain === 'solana'
      ? this.deps.wallet.startSolana({ walletAddress: input.walletAddress }, session.origin, WIDGET_SIGN_IN_STATEMENT)
      : this.deps.wallet.startEvmMessage({ walletAddress: input.walletAddress }, session.origin, WIDGET_SIGN_IN_STATEMENT);
  }

  /**
   * The owner's sign-in inside the widget: the checks of every wallet sign-in, on the
   * session's origin rather than the service's (a console message is refused here, a widget
   * message at the console), plus the wallet must be the bot owner's (else 403, and the nonce
   * is left unspent), and the message a widget sign-in's (else 401). Marks the session.
   */
  async signIn(session: WidgetSession, input: z.infer<typeof widgetSignInSchema>): Promise<{ owner: true; walletAddress: string }> {
    const bot = await this.bot(session.botId);
    const proven = await this.deps.wallet.prove({
      message: input.message,
      signature: input.signature,
      origin: session.origin,
      purpose: 'widget',
      beforeConsume: async (wallet) => {
        if (userIdOfWallet(wallet.chain, wallet.address) !== bot.ownerId) throw AppError.forbidden(WIDGET_MESSAGES.notOwner);
      },
    });
    await this.deps.sessions.setOwner(session.id, { chain: proven.chain, address: proven.address });
    return { owner: true, walletAddress: proven.address };
  }

  private async bot(botId: string): Promise<BotContext> {
    return (await this.botView(botId)).context;
  }

  private async botView(botId: string): Promise<ActorView<BotContext>> {
    const bot = await this.deps.bots.get(botId);
    // A bot deleted while a session ran: the session is over.
    if (bot?.status !== 'active') throw originNotAllowed();
    return bot;
  }
}

/** A session's conversation id and its name in events: a prefix of its token's hash. */
function chatIdOf(session: { id: string }): string {
  return `widget-${session.id.slice(0, 16)}`;
}
