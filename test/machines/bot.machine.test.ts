import { describe, expect, it } from 'vitest';
import { startActor } from '../support/machine-harness.js';
import { DEFAULT_BOT_MCP, botMachine, type BotInput } from '../../machines/bot.machine.js';

const input: BotInput = {
  botId: 'bot_1',
  publicId: 'pub_1',
  ownerId: 'usr_1',
  name: 'Studio',
  description: '',
  tradingEnabled: false,
  mcp: DEFAULT_BOT_MCP,
  createdAt: 1,
};

const start = (snapshot?: unknown) => startActor(botMachine, input, snapshot);

describe('bot machine', () => {
  it('updates its profile and MCP config while active', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'bot.update', changes: { name: 'Renamed', tradingEnabled: true }, at: 2 });
    actor.send({ type: 'bot.mcp.configure', changes: { granularErrors: true }, at: 3 });
    actor.send({ type: 'bot.mcp.token.rotated', keyId: 'key_1', at: 4 });
    expect(actor.getSnapshot().context).toMatchObject({
      name: 'Renamed',
      tradingEnabled: true,
      mcp: { enabled: true, granularErrors: true, disabledCategories: [] },
      mcpTokenKeyId: 'key_1',
      updatedAt: 4,
    });
    expect(emitted).toEqual([
      { type: 'bot.updated', botId: 'bot_1' },
      { type: 'bot.updated', botId: 'bot_1' },
    ]);
  });

  it('active → deleted, final', () => {
    const { actor, emitted } = start();
    actor.send({ type: 'bot.delete', at: 9 });
    expect(actor.getSnapshot()).toMatchObject({ value: 'deleted', status: 'done' });
    actor.send({ type: 'bot.update', changes: { name: 'zombie' }, at: 10 });
    expect(actor.getSnapshot().context.name).toBe('Studio');
    expect(emitted).toEqual([{ type: 'bot.deleted', botId: 'bot_1' }]);
  });

  it('rehydrates from a persisted snapshot and behaves the same', () => {
    const { actor } = start();
    actor.send({ type: 'bot.update', changes: { description: 'd' }, at: 2 });
    const restored = start(JSON.parse(JSON.stringify(actor.getPersistedSnapshot()))).actor;
    expect(restored.getSnapshot().context.description).toBe('d');
    restored.send({ type: 'bot.delete', at: 3 });
    expect(restored.getSnapshot().value).toBe('deleted');
  });
});
