import { createHash } from 'node:crypto';
import { derivedOrderId } from '../../kernel/vocabulary/ids.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { LlmMessage } from '../../kernel/ports/llm.port.js';
import type { CollectionSpec, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import { escapeUnsafe } from '../../kernel/shared/escape-unsafe.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import type { TradeChannel } from '../config/trading-config.types.js';
import type { StatusReader, SubjectStatus, TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';
import type { OrderView } from '../trading/order.types.js';
import { tradingDisabled } from '../trading/safety-path.js';
import type { AskBot } from './ask-bot.js';
import { interpret } from './command-interpreter.js';
import type { InterpretResult } from './intent.types.js';
import type { TradingCommand } from './trading-command.js';

/**
 * A legacy bot's conversations (the legacy routes `POST /api/nest/bots/:botId/chat`, the
 * Telegram and Discord connectors, the chat widget): one chat core for every surface that
 * talks to a bot. Questions go to `ask_bot` (the same core as the MCP tool), with the
 * conversation's earlier turns for the LLM; trading commands go to the command route's
 * executor, through the same safety path, when the caller may trade. Before that, the
 * catalog's rules for the operation the command is equivalent to (the `gate`: a family or
 * operation switched off, the bot's MCP categories, scope), then, for an order, the bot's
 * trading switch (the interface's soft refusal `Trading bu bot icin kapali.`). Each
 * conversation is kept per chat id as a bounded record.
 */

export const CHAT_HISTORY_COLLECTION: CollectionSpec = { name: 'bots.chat-histories', indexes: [] };

/** Turns kept per conversation (a user message and its reply are two): older ones drop off. */
const MAX_CHAT_TURNS = 40;
/** Characters kept of one turn. */
const MAX_TURN_CHARS = 4000;
/** A conversation nobody wrote to for this long is forgotten. */
const HISTORY_TTL_MS = 30 * 24 * 3600_000;

/** Intents that place or approve an order: refused at once while the bot's trading is off (the safety path would, later). */
export const ORDER_INTENTS = ['buy', 'sell', 'swap', 'approve'] as const;
/**
 * Intents that change a DCA strategy. They place no order, so the bot's trading switch does not
 * refuse them, as on the command route and the DCA operations: pausing must stay possible while
 * trading is off, and each buy of a strategy passes the safety path, which refuses it then.
 */
export const STRATEGY_INTENTS = ['dca_create', 'dca_pause', 'dca_resume', 'dca_approve'] as const;
/** Intents a chat executes (through the command executor) instead of describing. */
export type ExecutingIntent = (typeof ORDER_INTENTS)[number] | (typeof STRATEGY_INTENTS)[number];
const EXECUTING: ReadonlySet<string> = new Set<string>([...ORDER_INTENTS, ...STRATEGY_INTENTS]);
const ORDERS: ReadonlySet<string> = new Set<string>(ORDER_INTENTS);

/**
 * As whom a chat's command acts, for the catalog's rules: the owner in the console
 * (`operator`, as on REST) or the bot on its own channels (`bot`: Telegram, Discord, the
 * widget), with its MCP `disabledCategories`, as its MCP key would be.
 */
export interface ChatCaller {
  kind: 'operator' | 'bot';
  /** Scope the command acts with (approvals read it). */
  scope: KeyScope;
  /** Families the bot switched off for itself (its MCP config). */
  disabledFamilies?: readonly string[];
}

/**
 * Throws the catalog's refusal when the operation `intent` is equivalent to is not callable
 * by `caller` (the composition binds it to the catalog; see src/operations/command-gate.ts).
 */
export type CommandGate = (intent: ExecutingIntent, caller: ChatCaller) => void;

export interface ChatTurn {
  role: 'user' | 'assistant';
  text: string;
  /** Epoch ms. */
  at: number;
}

interface ChatHistory {
  turns: ChatTurn[];
}

/** Where the conversation happens; also the channel of the orders it places. */
export type ChatChannel = Extract<TradeChannel, 'chat' | 'telegram' | 'discord' | 'widget'>;

export interface ChatMessage {
  subject: TradingSubject;
  /** The bot's owner: orders are placed for them. */
  userId: string;
  channel: ChatChannel;
  /** The conversation (web: the caller's chat id; Telegram: the chat; Discord: the channel). */
  chatId: string;
  message: string;
  /**
   * May this speaker trade? The owner on the web; on a platform, the users the owner listed.
   * Anyone else gets `ask_bot`'s description of the command, never an order.
   */
  mayTrade: boolean;
  /**
   * The reply to a trading command of a speaker who may not trade, instead of `ask_bot`'s
   * description of it (the chat widget tells a visitor to sign in as the owner).
   */
  refuseTrade?: string;
  caller: ChatCaller;
  /**
   * The bot's trading switch, when the caller has just read the bot (saves a read; the safety
   * path reads it again before any order is placed). Absent: read here.
   */
  tradingEnabled?: boolean;
  /**
   * The bot's status as the caller read it in this request (never an earlier one's): the
   * trading switch above and the status questions are answered from it. Absent: read here.
   */
  account?: SubjectStatus;
  /**
   * The message's own id (a platform's update or message id, or the web client's): a trade
   * command delivered twice places one order (its id derives from this one).
   */
  messageId?: string;
}

export interface ChatAnswer {
  chat_id: string;
  reply: string;
  intent: string;
  params?: Record<string, unknown>;
  confidence: number;
  /** True when the command was executed (an order placed, approved, a strategy changed). */
  executed: boolean;
  order?: OrderView;
  degraded?: boolean;
}

export interface BotChatDeps {
  ask: Pick<AskBot, 'ask'>;
  command: Pick<TradingCommand, 'execute'>;
  status: Pick<StatusReader, 'agentStatus'>;
  gate: CommandGate;
  store: StorePort;
  clock: ClockPort;
}

export class BotChat {
  constructor(private readonly deps: BotChatDeps) {}

  /**
   * Answers one message and appends it and the answer to the conversation. A refusal (the
   * soft error when trading is off, a safety-path refusal) is kept as the answer and thrown.
   */
  async send(input: ChatMessage): Promise<ChatAnswer> {
    // Read once and passed on: the reply, the trade and the catalog's check all see the same command.
    const command = interpret(input.message);
    const { intent } = command;
    // The conversation as a question read it for the LLM: the turns are appended to that read.
    const seen: { history?: StoredDocument<ChatHistory> | null } = {};
    try {
      const answer =
        isExecutingIntent(intent) && input.mayTrade
          ? await this.trade(input, intent, command)
          : isExecutingIntent(intent) && input.refuseTrade !== undefined
            ? { chat_id: input.chatId, reply: input.refuseTrade, intent, confidence: 1, executed: false }
            : await this.askBot(input, command, seen);
      await this.append(input, answer.reply, seen.history);
      return escapedAnswer(answer);
    } catch (error) {
      await this.append(input, error instanceof Error ? error.message : String(error), seen.history);
      throw error;
    }
  }

  /** The conversation so far, oldest first. */
  async turns(subject: TradingSubject, channel: ChatChannel, chatId: string): Promise<ChatTurn[]> {
    const doc = await this.historyDoc(subject, channel, chatId);
    return doc ? [...doc.data.turns] : [];
  }

  private historyDoc(subject: TradingSubject, channel: ChatChannel, chatId: string): Promise<StoredDocument<ChatHistory> | null> {
    return this.deps.store.get<ChatHistory>(CHAT_HISTORY_COLLECTION.name, historyId(subject, channel, chatId));
  }

  /**
   * The earlier turns, for the LLM's phrasing only: a command is executed from its own message,
   * so it reads none. `seen` keeps the record as read, for the append.
   */
  private async history(input: ChatMessage, seen: { history?: StoredDocument<ChatHistory> | null }): Promise<LlmMessage[]> {
    const doc = await this.historyDoc(input.subject, input.channel, input.chatId);
    seen.history = doc;
    return (doc?.data.turns ?? []).map((turn) => ({ role: turn.role, content: turn.text }));
  }

  private async askBot(
    input: ChatMessage,
    command: InterpretResult,
    seen: { history?: StoredDocument<ChatHistory> | null },
  ): Promise<ChatAnswer> {
    const history = await this.history(input, seen);
    const asked = { subject: input.subject, message: input.message, chatId: input.chatId, history };
    const answer = await this.deps.ask.ask(input.account ? { ...asked, account: input.account } : asked, command);
    return { chat_id: input.chatId, ...answer, executed: false };
  }

  private async trade(input: ChatMessage, intent: ExecutingIntent, command: InterpretResult): Promise<ChatAnswer> {
    // First the catalog's answer for the equivalent operation: a switched-off family refuses on every road alike.
    this.deps.gate(intent, input.caller);
    // Before anything is read or quoted: the interface's soft refusal (the safety path would refuse the same way, later).
    const enabled = input.account?.tradingEnabled ?? input.tradingEnabled;
    if (ORDERS.has(intent) && !(enabled ?? (await this.deps.status.agentStatus(input.subject)).tradingEnabled))
      throw tradingDisabled(input.subject, false);
    const result = await this.deps.command.execute(input.subject, command, {
      userId: input.userId,
      channel: input.channel,
      scope: input.caller.scope,
      // The message id reused for another command is refused (the digest of what was asked is kept on the order).
      ...(input.messageId
        ? {
            orderId: derivedOrderId(`${subjectKey(input.subject)}|${input.channel}:${input.chatId}|message:${input.messageId}`),
            requestDigest: `chat:${createHash('sha256').update(input.message).digest('base64url')}`,
          }
        : {}),
    });
    return {
      chat_id: input.chatId,
      reply: result.reply,
      intent: result.intent,
      confidence: 1,
      executed: true,
      ...(result.order ? { order: result.order } : {}),
    };
  }

  /** `read`: the conversation as this call read it (absent: read now); the write is compare-and-set either way. */
  private async append(input: ChatMessage, reply: string, read?: StoredDocument<ChatHistory> | null): Promise<void> {
    const now = this.deps.clock.now();
    const added: ChatTurn[] = [
      { role: 'user', text: input.message.slice(0, MAX_TURN_CHARS), at: now },
      { role: 'assistant', text: reply.slice(0, MAX_TURN_CHARS), at: now },
    ];
    await updateRecord<ChatHistory>(
      this.deps.store,
      { collection: CHAT_HISTORY_COLLECTION.name, id: historyId(input.subject, input.channel, input.chatId) },
      (current) => ({
        data: { turns: [...(current?.data.turns ?? []), ...added].slice(-MAX_CHAT_TURNS) },
        expiresAt: now + HISTORY_TTL_MS,
      }),
      read === undefined ? {} : { read },
    );
  }
}

/** The answer as it leaves: the caller's chat id and the reply quote input, so control and bidi characters go out escaped. */
function escapedAnswer(answer: ChatAnswer): ChatAnswer {
  return { ...answer, chat_id: escapeUnsafe(answer.chat_id), reply: escapeUnsafe(answer.reply, { keepLineBreaks: true }) };
}

/** True for an intent a chat executes rather than describes. */
export function isExecutingIntent(intent: string): intent is ExecutingIntent {
  return EXECUTING.has(intent);
}

function historyId(subject: TradingSubject, channel: ChatChannel, chatId: string): string {
  return `${subjectKey(subject)}|${channel}|${chatId}`;
}
