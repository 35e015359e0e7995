import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORDER_INTENTS, STRATEGY_INTENTS, type ChatCaller } from '../../agents/chat/bot-chat.js';
import { COMMAND_OPERATIONS, commandGate } from '../../src/operations/command-gate.js';
import { startTestService, type TestService } from '../support/test-service.js';

describe('the chats’ command gate over the real catalog', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(() => svc.stop());

  const owner: ChatCaller = { kind: 'operator', scope: 'manage' };
  const bot: ChatCaller = { kind: 'bot', scope: 'trade' };
  const gate = () => commandGate(svc.service.operations.invoker);
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
        expect(() => gate()(intent, owner)).toThrow(expect.objectContaining({ status: 404, message: 'Tool not found: trading_command' }));
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
    expect(() => gate()('swap', { ...bot, scope: 'read' })).toThrow(expect.objectContaining({ status: 403 }));
  });
});
