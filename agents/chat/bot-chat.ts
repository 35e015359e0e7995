import { createHash } from 'node:crypto';
import { derivedOrderId } from '../trading/order-ids.js';
import { AppError } from '../../src/errors/app-error.js';
import type { ClockPort } from '../../src/ports/clock.port.js';
import type { LlmMessage } from '../../src/ports/llm.port.js';
import type { CollectionSpec, StorePort } from '../../src/ports/store.port.js';
import { updateRecord } from '../../src/shared/record-update.js';
import type { KeyScope } from '../../machines/api-key.machine.js';
import type { TradeChannel } from '../config/trading-config.types.js';
import type { StatusReader, TradingSubject } from '../portfolio/portfolio.types.js';
import { subjectKey } from '../portfolio/portfolio.records.js';
import type { OrderView } from '../trading/order.types.js';
import { SAFETY_MESSAGES } from '../trading/safety-path.js';
import type { AskBot } from './ask-bot.js';
import { interpret } from './command-interpreter.js';
import type { TradingCommand } from './trading-command.js';

/**
 * A legacy bot's conversations (interface 4.7 `POST /api/nest/bots/:botId/chat`, and the
 * Telegram and Discord connectors): one chat core for every surface that talks to a bot.
 * Questions go to `ask_bot` (the same core as the MCP tool), with the conversation's earlier
 * turns for the LLM; trading commands go to the command route's executor, through the same
 * safety path, when the caller may trade and the bot's trading is on; when it is off, the
 * interface's soft refusal (`Trading bu bot icin kapali.`). Each conversation is kept per
 * chat id as a bounded record.
 */

export const CHAT_HISTORY_COLLECTION: CollectionSpec = { name: 'bots.chat-histories', indexes: [] };

/** Turns kept per conversation (a user message and its reply are two): older ones drop off. */
const MAX_CHAT_TURNS = 40;
/** Characters kept of one turn. */
const MAX_TURN_CHARS = 4000;
/** A conversation nobody wrote to for this long is forgotten. */
const HISTORY_TTL_MS = 30 * 24 * 3600_000;

/** Intents that change something: orders, approvals, DCA strategies. */
const TRADING_INTENTS: ReadonlySet<string> = new Set([
  'buy',
  'sell',
  'swap',
  'approve',
  'dca_create',
  'dca_pause',
  'dca_resume',
  'dca_approve',
]);

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
  /** Scope the trade acts with (approvals read it). */
  scope: KeyScope;
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
    const history = await this.history(input);
    const interpreted = interpret(input.message);
    try {
      const trading = TRADING_INTENTS.has(interpreted.intent);
      const answer =
        trading && input.mayTrade
          ? await this.trade(input)
          : trading && input.refuseTrade !== undefined
            ? { chat_id: input.chatId, reply: input.refuseTrade, intent: interpreted.intent, confidence: 1, executed: false }
            : await this.askBot(input, history);
      await this.append(input, answer.reply);
      return answer;
    } catch (error) {
      await this.append(input, error instanceof Error ? error.message : String(error));
      throw error;
    }
  }

  /** The conversation so far, oldest first. */
  async turns(subject: TradingSubject, channel: ChatChannel, chatId: string): Promise<ChatTurn[]> {
    const doc = await this.deps.store.get<ChatHistory>(CHAT_HISTORY_COLLECTION.name, historyId(subject, channel, chatId));
    return doc ? [...doc.data.turns] : [];
  }

  private async history(input: ChatMessage): Promise<LlmMessage[]> {
    return (await this.turns(input.subject, input.channel, input.chatId)).map((turn) => ({ role: turn.role, content: turn.text }));
  }

  private async askBot(input: ChatMessage, history: LlmMessage[]): Promise<ChatAnswer> {
    const answer = await this.deps.ask.ask({ subject: input.subject, message: input.message, chatId: input.chatId, history });
    return { chat_id: input.chatId, ...answer, executed: false };
  }

  private async trade(input: ChatMessage): Promise<ChatAnswer> {
    // Before anything is read or quoted: the interface's soft refusal (the safety path would refuse the same way, later).
    const status = await this.deps.status.agentStatus(input.subject);
    if (!status.tradingEnabled)
      throw new AppError('TRADING_DISABLED', SAFETY_MESSAGES.tradingDisabled, { envelope: 'canonical', status: 200, retryable: false });
    const result = await this.deps.command.execute(input.subject, input.message, {
      userId: input.userId,
      channel: input.channel,
      scope: input.scope,
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

  private async append(input: ChatMessage, reply: string): Promise<void> {
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
    );
  }
}

function historyId(subject: TradingSubject, channel: ChatChannel, chatId: string): string {
  return `${subjectKey(subject)}|${channel}|${chatId}`;
}
