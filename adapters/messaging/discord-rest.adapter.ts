import { setTimeout as sleep } from 'node:timers/promises';
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

const PROVIDER = 'discord';
/** Discord refuses longer messages. */
const MAX_TEXT = 2000;
/** Most messages one request returns. */
const PAGE = 100;

export interface DiscordOptions {
  /** API root including the version, `https://discord.com/api/v10` (config `DISCORD_API_URL`; tests serve a fake). */
  baseUrl: string;
  /** Pause after a poll that found nothing (config `DISCORD_POLL_INTERVAL_MS`). */
  pollIntervalMs: number;
  fetch?: typeof fetch;
}

const messagesSchema = z.array(
  z
    .object({
      id: z.string().regex(/^\d+$/),
      content: z.string().optional(),
      author: z.object({ id: z.string(), bot: z.boolean().optional() }).loose(),
    })
    .loose(),
);

/** Last message id seen per channel. */
const cursorSchema = z.record(z.string(), z.string().regex(/^\d+$/));

/**
 * Discord through its REST API (https://discord.com/developers/docs/resources/message):
 * each poll reads the configured channels' messages after the last one seen
 * (`GET /channels/{id}/messages?after=`), and replies are posted with a message reference
 * (`POST /channels/{id}/messages`). Chosen over the Gateway (a WebSocket with heartbeats,
 * identify/resume and sequence numbers) because polling is one stateless request per
 * channel, restarts from a stored cursor without a resume protocol, has the same shape as
 * Telegram's long polling, and is faked locally by a plain HTTP server; the price is a
 * reply latency of up to one poll interval and one request per channel per interval.
 * The bot needs the Message Content intent to read messages that do not mention it.
 */
export class DiscordRestApi implements MessagingPlatformPort {
  readonly platform = 'discord' as const;
  constructor(private readonly options: DiscordOptions) {}

  connect(credentials: PlatformCredentials): PlatformClient {
    const { baseUrl, pollIntervalMs } = this.options;
    const fetchFn = this.options.fetch ?? fetch;
    const root = baseUrl.replace(/\/+$/, '');
    const headers = { authorization: `Bot ${credentials.token}` };
    const call = async (method: 'GET' | 'POST', path: string, signal: AbortSignal, json?: unknown) => {
      const response = await vendorRequest({
        provider: PROVIDER,
        fetch: fetchFn,
        url: `${root}${path}`,
        method,
        headers,
        signal,
        ...(json === undefined ? {} : { json }),
      });
      if (response.status < 200 || response.status >= 300)
        throw providerUnavailable(PROVIDER, `${method} ${path.split('?')[0]} answered HTTP ${response.status}`, {
          details: { status: response.status },
        });
      return response.body;
    };
    const read = async (channelId: string, query: string, signal: AbortSignal) =>
      parseVendorBody(
        PROVIDER,
        messagesSchema,
        await call('GET', `/channels/${encodeURIComponent(channelId)}/messages?${query}`, signal),
        'messages',
      );

    return {
      async poll(cursor: string | undefined, signal: AbortSignal): Promise<PlatformPoll> {
        const last: Record<string, string> = cursor ? parseCursor(cursor) : {};
        const messages: IncomingMessage[] = [];
        for (const channelId of credentials.channelIds) {
          const after = last[channelId];
          if (after === undefined) {
            // A channel read for the first time starts after its newest message: no backlog is answered.
            const newest = await read(channelId, 'limit=1', signal);
            last[channelId] = newest[0]?.id ?? '0';
            continue;
          }
          // Discord answers newest first; the conversation is answered oldest first.
          const page = (await read(channelId, `after=${after}&limit=${PAGE}`, signal)).sort((a, b) => compareIds(a.id, b.id));
          for (const message of page) {
            last[channelId] = message.id;
            if (message.author.bot || !message.content) continue;
            messages.push({
              messageId: message.id,
              chatId: channelId,
              userId: message.author.id,
              text: message.content,
              replyRef: message.id,
            });
          }
        }
        // Nothing new: wait before the next poll, as Telegram's long poll waits on the server.
        if (messages.length === 0) await sleep(pollIntervalMs, undefined, { signal }).catch(() => undefined);
        return { messages, cursor: JSON.stringify(last) };
      },
      async send(chatId: string, text: string, replyTo: IncomingMessage | undefined, signal: AbortSignal): Promise<void> {
        await call('POST', `/channels/${encodeURIComponent(chatId)}/messages`, signal, {
          content: text.slice(0, MAX_TEXT),
          // A reply mentions nobody: the text is the bot's, not a way to ping a channel.
          allowed_mentions: { parse: [] },
          ...(replyTo?.replyRef ? { message_reference: { message_id: replyTo.replyRef, fail_if_not_exists: false } } : {}),
        });
      },
    };
  }
}

function parseCursor(cursor: string): Record<string, string> {
  try {
    const parsed = cursorSchema.safeParse(JSON.parse(cursor));
    return parsed.success ? { ...parsed.data } : {};
  } catch {
    return {};
  }
}

/** Snowflakes are 64-bit integers in decimal: compared as such, not as text. */
function compareIds(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}
