import { z } from 'zod';
import type {
  IncomingMessage,
  MessagingPlatformPort,
  PlatformClient,
  PlatformCredentials,
  PlatformPoll,
} from '../../kernel/ports/messaging-platform.port.js';
import { providerUnavailable } from '../resilience/provider-breaker.js';
import { parseVendorBody, vendorRequest } from '../resilience/vendor-http.js';

const PROVIDER = 'telegram';
/** Telegram refuses longer messages. */
const MAX_TEXT = 4096;

export interface TelegramOptions {
  /** API root, `https://api.telegram.org` (config `TELEGRAM_API_URL`; tests serve a fake). */
  baseUrl: string;
  /** Seconds one `getUpdates` may wait for a message (long polling; config `TELEGRAM_POLL_TIMEOUT_SECONDS`). */
  pollTimeoutSeconds: number;
  fetch?: typeof fetch;
}

const envelope = <S extends z.ZodType>(result: S) =>
  z.object({ ok: z.boolean(), result: result.optional(), description: z.string().optional() }).loose();
const updatesSchema = envelope(
  z.array(
    z
      .object({
        update_id: z.number().int(),
        message: z
          .object({
            message_id: z.number().int(),
            chat: z.object({ id: z.number().int() }).loose(),
            from: z.object({ id: z.number().int(), is_bot: z.boolean().optional() }).loose().optional(),
            text: z.string().optional(),
          })
          .loose()
          .optional(),
      })
      .loose(),
  ),
);

/**
 * The Telegram Bot API (https://core.telegram.org/bots/api): long polling with
 * `getUpdates` (the offset confirms what was handled), replies with `sendMessage`. Only
 * text messages from people are handed on; other updates are skipped (and confirmed).
 */
export class TelegramBotApi implements MessagingPlatformPort {
  readonly platform = 'telegram' as const;
  constructor(private readonly options: TelegramOptions) {}

  connect(credentials: PlatformCredentials): PlatformClient {
    const { baseUrl, pollTimeoutSeconds } = this.options;
    const fetchFn = this.options.fetch ?? fetch;
    // The token is part of the path (the API's design): it never goes into a message or a log line.
    const root = `${baseUrl.replace(/\/+$/, '')}/bot${credentials.token}`;
    const call = async (method: string, json: unknown, signal: AbortSignal) => {
      const response = await vendorRequest({ provider: PROVIDER, fetch: fetchFn, url: `${root}/${method}`, method: 'POST', json, signal });
      if (response.status !== 200)
        throw providerUnavailable(PROVIDER, `${method} answered HTTP ${response.status}`, { details: { status: response.status } });
      return response.body;
    };
    return {
      async poll(cursor: string | undefined, signal: AbortSignal): Promise<PlatformPoll> {
        // No cursor yet: start after the newest pending update, answering no backlog.
        const first = cursor === undefined;
        const body = await call(
          'getUpdates',
          {
            ...(first ? { offset: -1, timeout: 0 } : { offset: Number(cursor), timeout: pollTimeoutSeconds }),
            allowed_updates: ['message'],
          },
          signal,
        );
        const updates = parseVendorBody(PROVIDER, updatesSchema, body, 'getUpdates');
        if (!updates.ok || !updates.result) throw providerUnavailable(PROVIDER, 'getUpdates was refused');
        const last = updates.result.at(-1);
        const next = last ? String(last.update_id + 1) : (cursor ?? '0');
        if (first) return { messages: [], cursor: next };
        const messages: IncomingMessage[] = [];
        for (const update of updates.result) {
          const message = update.message;
          if (!message?.text || !message.from || message.from.is_bot) continue;
          messages.push({
            messageId: String(update.update_id),
            chatId: String(message.chat.id),
            userId: String(message.from.id),
            text: message.text,
            replyRef: String(message.message_id),
          });
        }
        return { messages, cursor: next };
      },
      async send(chatId: string, text: string, replyTo: IncomingMessage | undefined, signal: AbortSignal): Promise<void> {
        const reference = replyTo?.replyRef
          ? { reply_parameters: { message_id: Number(replyTo.replyRef), allow_sending_without_reply: true } }
          : {};
        await call('sendMessage', { chat_id: chatId, text: text.slice(0, MAX_TEXT), ...reference }, signal);
      },
    };
  }
}
