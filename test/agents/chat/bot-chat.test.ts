import { describe, expect, it } from 'vitest';
import { BotChat, CHAT_HISTORY_COLLECTION, type ChatMessage, type CommandGate } from '../../../agents/chat/bot-chat.js';
import type { SubjectStatus } from '../../../agents/portfolio/portfolio.types.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { StorePort } from '../../../kernel/ports/store.port.js';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { MemoryStore } from '../../support/memory-store.adapter.js';

const status = (tradingEnabled: boolean): SubjectStatus => ({
  subjectType: 'bot',
  subjectId: 'bot_1',
  name: 'Bot',
  status: 'active',
  tradingEnabled,
});

/** A chat core over fakes that record what was read and executed; `gate` refuses what `refuse` says. */
async function harness(options: { tradingEnabled?: boolean; refuse?: (intent: string) => AppError | undefined } = {}) {
  const clock = new ManualClock();
  const memory = new MemoryStore(clock);
  await memory.init([CHAT_HISTORY_COLLECTION]);
  const reads: string[] = [];
  const store: StorePort = new Proxy(memory, {
    get(target, key, receiver) {
      if (key === 'get')
        return (collection: string, id: string) => {
          reads.push(`${collection}/${id}`);
          return target.get(collection, id);
        };
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const calls = {
    status: 0,
    executed: [] as string[],
    /** Store reads done by the time each command ran. */
    readsAtExecute: [] as number[],
    asked: [] as number[],
    gated: [] as Array<Parameters<CommandGate>>,
  };
  const gate: CommandGate = (intent, caller) => {
    calls.gated.push([intent, caller]);
    const refusal = options.refuse?.(intent);
    if (refusal) throw refusal;
  };
  const chat = new BotChat({
    ask: {
      ask: async (input) => {
        calls.asked.push(input.history?.length ?? 0);
        return { reply: 'described', intent: 'x', confidence: 1 };
      },
    },
    command: {
      execute: async (_subject, command) => {
        calls.executed.push(command.intent);
        calls.readsAtExecute.push(reads.length);
        return { success: true, reply: `ran ${command.intent}`, intent: 'x' };
      },
    },
    status: {
      agentStatus: async () => {
        calls.status++;
        return status(options.tradingEnabled ?? true);
      },
    },
    gate,
    store,
    clock,
  });
  return { chat, calls, reads };
}

const message = (text: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({
  subject: { type: 'bot', id: 'bot_1' },
  userId: 'usr_1',
  channel: 'telegram',
  chatId: 'c1',
  message: text,
  mayTrade: true,
  caller: { kind: 'bot', scope: 'trade', disabledFamilies: ['strategy'] },
  ...extra,
});

const switchedOff = (name: string) => new AppError('RESOURCE_NOT_FOUND', `Tool not found: ${name}`, { envelope: 'standard' });

describe('BotChat: commands pass the catalog gate first', () => {
  it('asks the gate with the intent and the caller, and executes nothing it refuses; the refusal is the answer kept', async () => {
    const { chat, calls } = await harness({ refuse: (intent) => (intent === 'swap' ? switchedOff('trading_command') : undefined) });
    await expect(chat.send(message('swap 10 USDC to SOL'))).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Tool not found: trading_command',
    });
    expect(calls.gated).toEqual([['swap', { kind: 'bot', scope: 'trade', disabledFamilies: ['strategy'] }]]);
    expect(calls.executed).toEqual([]);
    // Refused before the bot's switch is read.
    expect(calls.status).toBe(0);
    expect((await chat.turns({ type: 'bot', id: 'bot_1' }, 'telegram', 'c1')).map((turn) => turn.text)).toEqual([
      'swap 10 USDC to SOL',
      'Tool not found: trading_command',
    ]);
  });

  it('every executing intent is gated, DCA ones included', async () => {
    const { chat, calls } = await harness();
    for (const text of ['buy 1 SOL of BONK', 'sell all WIF', 'approve ord_abc', 'dca pause', 'dca resume', 'dca approve daily']) {
      await chat.send(message(text));
    }
    expect(calls.gated.map(([intent]) => intent)).toEqual(['buy', 'sell', 'approve', 'dca_pause', 'dca_resume', 'dca_approve']);
  });

  it('a question and a speaker who may not trade pass no gate', async () => {
    const { chat, calls } = await harness({ refuse: (intent) => switchedOff(intent) });
    expect((await chat.send(message('status'))).reply).toBe('described');
    expect((await chat.send(message('swap 10 USDC to SOL', { mayTrade: false }))).executed).toBe(false);
    expect(calls.gated).toEqual([]);
  });
});

describe("BotChat and the bot's trading switch", () => {
  it('refuses an order while trading is off (the soft error), but pauses a DCA strategy, as the command route does', async () => {
    const { chat, calls } = await harness({ tradingEnabled: false });
    await expect(chat.send(message('swap 10 USDC to SOL'))).rejects.toMatchObject({ code: 'TRADING_DISABLED', kind: 'declined' });
    expect(calls.executed).toEqual([]);
    expect(await chat.send(message('dca pause'))).toMatchObject({ executed: true, reply: 'ran dca_pause' });
    expect(calls.executed).toEqual(['dca_pause']);
  });

  it("uses the caller's fresh reading of the switch instead of reading the bot again", async () => {
    const { chat, calls } = await harness({ tradingEnabled: false });
    expect(await chat.send(message('swap 10 USDC to SOL', { tradingEnabled: true }))).toMatchObject({ executed: true });
    await expect(chat.send(message('swap 10 USDC to SOL', { tradingEnabled: false }))).rejects.toMatchObject({ code: 'TRADING_DISABLED' });
    expect(calls.status).toBe(0);
    // Without it, the switch is read.
    await expect(chat.send(message('swap 10 USDC to SOL'))).rejects.toMatchObject({ code: 'TRADING_DISABLED' });
    expect(calls.status).toBe(1);
  });
});

describe('BotChat history', () => {
  it('reads the conversation for a question only, never for a command', async () => {
    const { chat, calls, reads } = await harness();
    await chat.send(message('status'));
    await chat.send(message('status'));
    expect(calls.asked).toEqual([0, 2]);
    const before = reads.length;
    await chat.send(message('swap 10 USDC to SOL', { tradingEnabled: true }));
    expect(calls.readsAtExecute).toEqual([before]);
  });
});
