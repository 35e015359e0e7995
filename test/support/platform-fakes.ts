import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local fakes of the Telegram Bot API and of Discord's REST API, served over HTTP by the test
 * (no internet): they keep what people wrote and what the bot answered, check the bot
 * token, and can be told to fail every call (`failing`).
 */

async function readJson(req: IncomingMessage): Promise<any> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : {};
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function waitFor<T>(what: string, find: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export interface TelegramSent {
  chat_id: string | number;
  text: string;
  reply_parameters?: { message_id: number };
}

export class FakeTelegram {
  readonly sent: TelegramSent[] = [];
  /** Calls of getUpdates seen (any answer). */
  polls = 0;
  failing = false;
  private updates: Array<{ update_id: number; message: Record<string, unknown> }> = [];
  private nextUpdate = 1000;
  private nextMessage = 1;
  private waiters: Array<() => void> = [];
  private server!: Server;
  url = '';

  constructor(readonly token: string) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.url = await listen(this.server);
    return this;
  }

  async stop(): Promise<void> {
    for (const wake of this.waiters.splice(0)) wake();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** A person writes to the bot. */
  say(chatId: number, userId: number, text: string): number {
    const message_id = this.nextMessage++;
    this.updates.push({
      update_id: this.nextUpdate++,
      message: { message_id, chat: { id: chatId, type: 'private' }, from: { id: userId, is_bot: false, first_name: 'P' }, date: 0, text },
    });
    for (const wake of this.waiters.splice(0)) wake();
    return message_id;
  }

  /** The bot's answer to the message `messageId`. */
  replyTo(messageId: number, timeoutMs = 10_000): Promise<TelegramSent> {
    return waitFor(
      `a Telegram reply to ${messageId}`,
      () => this.sent.find((m) => m.reply_parameters?.message_id === messageId),
      timeoutMs,
    );
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(req.url ?? '');
    const body = await readJson(req);
    if (!match) return send(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (match[2] === 'getUpdates') this.polls++;
    if (this.failing) return send(res, 502, { ok: false, error_code: 502, description: 'Bad Gateway' });
    if (match[1] !== this.token) return send(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (match[2] === 'getUpdates') {
      const offset: number = body.offset ?? 0;
      if (offset === -1) return send(res, 200, { ok: true, result: this.updates.slice(-1) });
      // As Telegram does: an offset confirms every update before it.
      this.updates = this.updates.filter((update) => update.update_id >= offset);
      if (this.updates.length === 0 && body.timeout > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, body.timeout * 1000);
          this.waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return send(res, 200, { ok: true, result: this.updates.filter((update) => update.update_id >= offset) });
    }
    if (match[2] === 'sendMessage') {
      this.sent.push(body);
      return send(res, 200, { ok: true, result: { message_id: this.nextMessage++, chat: { id: body.chat_id }, text: body.text } });
    }
    return send(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
  }
}

interface DiscordMessage {
  id: string;
  channel_id: string;
  content: string;
  author: { id: string; bot?: boolean };
  message_reference?: { message_id: string };
}

export class FakeDiscord {
  /** What the bot posted. */
  readonly posted: DiscordMessage[] = [];
  failing = false;
  private readonly channels = new Map<string, DiscordMessage[]>();
  private nextId = 100_000_000_000_000_000n;
  private server!: Server;
  url = '';

  constructor(
    readonly token: string,
    readonly botUserId = '900000000000000001',
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.url = `${await listen(this.server)}/api/v10`;
    return this;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }

  /** A person writes in a channel. */
  say(channelId: string, userId: string, content: string): string {
    return this.add(channelId, { content, author: { id: userId } }).id;
  }

  replyTo(messageId: string, timeoutMs = 10_000): Promise<DiscordMessage> {
    return waitFor(
      `a Discord reply to ${messageId}`,
      () => this.posted.find((m) => m.message_reference?.message_id === messageId),
      timeoutMs,
    );
  }

  private add(channelId: string, fields: Omit<DiscordMessage, 'id' | 'channel_id'>): DiscordMessage {
    const message = { id: String(this.nextId++), channel_id: channelId, ...fields };
    const list = this.channels.get(channelId) ?? [];
    list.push(message);
    this.channels.set(channelId, list);
    return message;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const match = /^\/api\/v10\/channels\/(\d+)\/messages$/.exec(url.pathname);
    const body = req.method === 'POST' ? await readJson(req) : undefined;
    if (this.failing) return send(res, 502, { message: 'Bad Gateway', code: 0 });
    if (req.headers.authorization !== `Bot ${this.token}`) return send(res, 401, { message: '401: Unauthorized', code: 0 });
    if (!match) return send(res, 404, { message: 'Unknown route', code: 0 });
    const channelId = match[1]!;
    if (req.method === 'GET') {
      const all = this.channels.get(channelId) ?? [];
      const limit = Number(url.searchParams.get('limit') ?? '50');
      const after = url.searchParams.get('after');
      const picked = after ? all.filter((m) => BigInt(m.id) > BigInt(after)).slice(0, limit) : all.slice(-limit);
      // Discord lists newest first.
      return send(res, 200, [...picked].reverse());
    }
    const message = this.add(channelId, {
      content: body.content,
      author: { id: this.botUserId, bot: true },
      ...(body.message_reference ? { message_reference: body.message_reference } : {}),
    });
    this.posted.push(message);
    return send(res, 200, message);
  }
}
