/**
 * Messaging platform port: a legacy bot's Telegram or Discord connection (the legacy routes
 * `platforms/:platform/start|stop`). The connector pulls new messages and sends replies;
 * what a message means is the chat core's (agents/chat/bot-chat.ts). Adapters throw
 * `AppError` `PROVIDER_UNAVAILABLE` (503) for every failure of the platform (network,
 * 5xx, 429, a refused token), so the runner's circuit breaker counts each one.
 */

export type MessagingPlatform = 'telegram' | 'discord';

/** One message someone wrote to the bot. */
export interface IncomingMessage {
  /** Unique within the connection: Telegram `update_id`, Discord message id. */
  messageId: string;
  /** The conversation: Telegram chat id, Discord channel id. */
  chatId: string;
  /** The sender: Telegram user id, Discord user id. */
  userId: string;
  text: string;
  /** The platform's id of the message itself, that a reply names (Telegram `message_id`; absent: sent without a reference). */
  replyRef?: string;
}

export interface PlatformPoll {
  /** In the order they were written. */
  messages: IncomingMessage[];
  /**
   * Where the next poll starts, once these messages are handled (opaque; kept across restarts
   * so that no message is answered twice and none written while stopped is lost).
   */
  cursor: string;
}

/** A connection to the platform with one bot token. */
export interface PlatformClient {
  /**
   * New messages after `cursor` (none: start from now, answering no backlog). May wait for
   * them (Telegram's long polling); `signal` ends the wait.
   */
  poll(cursor: string | undefined, signal: AbortSignal): Promise<PlatformPoll>;
  /** Sends `text` to the conversation, as a reply to the message `replyTo` when given. */
  send(chatId: string, text: string, replyTo: IncomingMessage | undefined, signal: AbortSignal): Promise<void>;
}

/** What a bot's owner configured for a platform, decrypted for the connection only. */
export interface PlatformCredentials {
  token: string;
  /** Discord: the channels to read (Telegram reads every chat the bot is in). */
  channelIds: readonly string[];
}

/** Makes clients of one platform. */
export interface MessagingPlatformPort {
  readonly platform: MessagingPlatform;
  connect(credentials: PlatformCredentials): PlatformClient;
}
