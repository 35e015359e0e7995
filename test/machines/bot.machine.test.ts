import { describe, expect, it } from 'vitest';
import { startActor } from '../support/machine-harness.js';
import { DEFAULT_BOT_MCP, botDefinition, botMachine, type BotInput } from '../../machines/bot.machine.js';
import { decodeActorDocument } from '../../src/runtime/snapshot-codec.js';

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

  it('platform connectors: stopped → started → tripped (with the reason) → started → stopped; no-ops refused', () => {
    const { actor, emitted } = start();
    expect(actor.getSnapshot().context.platforms).toEqual({
      telegram: { status: 'stopped', since: 1 },
      discord: { status: 'stopped', since: 1 },
    });
    expect(botDefinition.indexes!(actor.getSnapshot().context).platforms).toBe('none');
    actor.send({ type: 'bot.platform.stop', platform: 'telegram', at: 2 });
    actor.send({ type: 'bot.platform.trip', platform: 'telegram', reason: 'r', at: 2 });
    expect(emitted).toEqual([]);
    actor.send({ type: 'bot.platform.start', platform: 'telegram', at: 3 });
    actor.send({ type: 'bot.platform.start', platform: 'telegram', at: 4 });
    expect(actor.getSnapshot().context.platforms.telegram).toEqual({ status: 'started', since: 3 });
    expect(botDefinition.indexes!(actor.getSnapshot().context).platforms).toBe('started');
    actor.send({ type: 'bot.platform.trip', platform: 'telegram', reason: 'Circuit breaker open for provider: telegram', at: 5 });
    expect(actor.getSnapshot().context.platforms.telegram).toEqual({
      status: 'tripped',
      since: 5,
      reason: 'Circuit breaker open for provider: telegram',
    });
    expect(botDefinition.indexes!(actor.getSnapshot().context).platforms).toBe('none');
    actor.send({ type: 'bot.platform.start', platform: 'telegram', at: 6 });
    actor.send({ type: 'bot.platform.start', platform: 'discord', at: 6 });
    expect(actor.getSnapshot().context.platforms.telegram).toEqual({ status: 'started', since: 6 });
    actor.send({ type: 'bot.platform.stop', platform: 'telegram', at: 7 });
    expect(actor.getSnapshot().context.platforms).toEqual({
      telegram: { status: 'stopped', since: 7 },
      discord: { status: 'started', since: 6 },
    });
    expect(emitted).toHaveLength(5);
    // Deleting stops what runs.
    actor.send({ type: 'bot.delete', at: 8 });
    expect(botDefinition.indexes!(actor.getSnapshot().context).platforms).toBe('none');
  });

  it('a version 1 snapshot (no platforms) reads as all stopped and can start one', () => {
    const { actor } = start();
    const v1 = JSON.parse(JSON.stringify(actor.getPersistedSnapshot()));
    delete v1.context.platforms;
    const persisted = decodeActorDocument(botDefinition, 'bot_1', { machineVersion: 1, snapshot: v1 });
    const restored = start(persisted).actor;
    expect(restored.getSnapshot().context.platforms.discord).toEqual({ status: 'stopped', since: 1 });
    restored.send({ type: 'bot.platform.start', platform: 'discord', at: 2 });
    expect(restored.getSnapshot().context.platforms.discord.status).toBe('started');
  });
});
