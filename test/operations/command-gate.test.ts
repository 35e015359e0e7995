import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_INTENTS, STRATEGY_INTENTS, type ChatCaller } from '../../agents/chat/bot-chat.js';
import { COMMAND_OPERATIONS, commandGate } from '../../src/operations/command-gate.js';
import { Client, signInSolana, startTestService, type TestService } from '../support/test-service.js';

describe('the chats’ command gate over the real catalog', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.stop());

  const owner: ChatCaller = { kind: 'operator', scope: 'manage' };
  const bot: ChatCaller = { kind: 'bot', scope: 'trade' };
  const gate = () => commandGate(svc.service.operations.catalog);
  const settings = (disabledFamilies: Array<'trading' | 'strategy'>, disabledOperations: string[] = []) =>
    svc.service.operations.catalog.configure({ disabledFamilies, disabledOperations });

  it('maps every executed intent to an operation the owner and the bot may call: orders to `trading`, DCA to `strategy`', () => {
    const { catalog } = svc.service.operations;
    for (const intent of [...ORDER_INTENTS, ...STRATEGY_INTENTS]) {
      const operation = catalog.get(COMMAND_OPERATIONS[intent]);
      expect(operation, intent).toBeDefined();
      expect(operation!.principals).toEqual(expect.arrayContaining(['bot', 'operator']));
      expect(operation!.family).toBe((ORDER_INTENTS as readonly string[]).includes(intent) ? 'trading' : 'strategy');
    }
  });

  it('refuses as the catalog does: a switched-off family or operation is `Tool not found: <name>`, pausing a DCA stays allowed', () => {
    try {
      settings(['trading']);
      for (const intent of ['buy', 'sell', 'swap'] as const) {
        expect(() => gate()(intent, owner)).toThrow(
          expect.objectContaining({ kind: 'not_found', message: 'Tool not found: trading_command' }),
        );
      }
      expect(() => gate()('approve', bot)).toThrow('Tool not found: trading_orders_approve');
      for (const intent of STRATEGY_INTENTS) expect(() => gate()(intent, bot)).not.toThrow();

      settings(['strategy']);
      expect(() => gate()('dca_create', owner)).toThrow('Tool not found: trading_dca_strategy_create');
      expect(() => gate()('swap', owner)).not.toThrow();

      settings([], ['trading_command']);
      expect(() => gate()('swap', bot)).toThrow('Tool not found: trading_command');
    } finally {
      settings([]);
    }
    for (const intent of [...ORDER_INTENTS, ...STRATEGY_INTENTS]) expect(() => gate()(intent, bot)).not.toThrow();
  });

  it("applies the bot's own MCP categories, and scope", () => {
    const withoutStrategy: ChatCaller = { ...bot, disabledFamilies: ['strategy'] };
    expect(() => gate()('dca_create', withoutStrategy)).toThrow('Tool not found: trading_dca_strategy_create');
    expect(() => gate()('swap', withoutStrategy)).not.toThrow();
    expect(() => gate()('swap', { ...bot, disabledFamilies: ['trading'] })).toThrow('Tool not found: trading_command');
    expect(() => gate()('swap', { ...bot, scope: 'read' })).toThrow(expect.objectContaining({ kind: 'forbidden' }));
  });

  it('the command route refuses a DCA command as `trading_dca_*` is refused: the bot’s MCP categories, the `strategy` family', async () => {
    const operator = new Client(svc.url);
    const userId = (await signInSolana(operator)).user.id;
    const botId = (await operator.post('/api/nest/bots', { name: 'Command bot' })).body.id as string;
    const command = (message: string, viewer: ChatCaller) =>
      svc.service.operations.invoker.invoke({
        name: 'trading_command',
        input: { message, idempotencyKey: randomUUID() },
        ctx: {
          principal: { type: 'system', job: 'test' },
          scope: viewer.scope,
          subject: { type: 'bot', id: botId },
          userId,
          requestId: 'r',
          correlationId: 'c',
          surface: 'mcp',
        },
        viewer,
      });
    const create = 'dca 10 USDC into SOL every day';
    await expect(command(create, { ...bot, disabledFamilies: ['strategy'] })).rejects.toMatchObject({
      kind: 'not_found',
      message: 'Tool not found: trading_dca_strategy_create',
    });
    try {
      settings(['strategy']);
      await expect(command(create, owner)).rejects.toThrow('Tool not found: trading_dca_strategy_create');
      // A question through the command route is no strategy's.
      await expect(command('positions', owner)).resolves.toMatchObject({ intent: 'positions' });
    } finally {
      settings([]);
    }
    await expect(command(create, bot)).resolves.toMatchObject({ intent: 'dca_create' });
  });
});
