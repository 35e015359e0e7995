import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { EmbeddedLlm } from '../../../adapters/llm/embedded-llm.adapter.js';
import { AskBot } from '../../../agents/chat/ask-bot.js';
import type { PortfolioSummary, StatusReader, SubjectStatus, TradingSubject } from '../../../agents/portfolio/portfolio.types.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { readLlmFacts, type LlmPort, type LlmRequest } from '../../../kernel/ports/llm.port.js';

const subject: TradingSubject = { type: 'agent', id: 'a1' };
const status: SubjectStatus = { subjectType: 'agent', subjectId: 'a1', name: 'Alpha', status: 'active', tradingEnabled: false };
const portfolio: PortfolioSummary = {
  ...status,
  wallets: [{ walletId: 'w1', chain: 'solana', address: 'So1Addr', custodial: true }],
  positions: [{ chain: 'solana', token: 'BonkMint', symbol: 'BONK', amount: '1000000', valueUsd: '21.50' }],
  openOrders: 1,
  valueUsd: '21.50',
  asOf: '2026-01-01T00:00:00.000Z',
};

function fakeReader(): StatusReader & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    agentStatus: async (s) => {
      calls.push(`status:${s.type}:${s.id}`);
      if (s.id === 'missing') throw AppError.notFound('Agent not found');
      return status;
    },
    portfolio: async (s) => {
      calls.push(`portfolio:${s.type}:${s.id}`);
      return portfolio;
    },
  };
}

/** A generative model stand-in that records what it was asked. */
function recordingLlm(answer: (request: LlmRequest) => Promise<string>): LlmPort & { requests: LlmRequest[] } {
  const requests: LlmRequest[] = [];
  return {
    name: 'fake',
    requests,
    complete: async (request) => {
      requests.push(request);
      return { text: await answer(request) };
    },
  };
}

const makeBot = (llm: LlmPort = new EmbeddedLlm(), onLlmError?: (error: unknown) => void) => {
  const reader = fakeReader();
  const bot = new AskBot({ llm, status: reader, clock: new ManualClock(), ...(onLlmError ? { onLlmError } : {}) });
  return { bot, reader };
};
const ask = (bot: AskBot, message: string, chatId = 'chat-1') => bot.ask({ subject, message, chatId });

describe('AskBot with the embedded LLM (templated replies)', () => {
  it('answers status from the reader', async () => {
    const { bot, reader } = makeBot();
    expect(await ask(bot, 'status')).toEqual({
      reply: 'Alpha (agent a1) is active; trading is disabled.',
      intent: 'status',
      params: {},
      confidence: 1,
    });
    expect(reader.calls).toEqual(['status:agent:a1']);
  });

  it('answers portfolio, positions and orders from the portfolio summary', async () => {
    const { bot } = makeBot();
    const answer = await ask(bot, 'show my portfolio');
    expect(answer).toMatchObject({ intent: 'portfolio', confidence: 1 });
    expect(answer.reply).toContain('1 wallet, 1 position, 1 open order, value $21.50');
    expect(answer.reply).toContain('- 1000000 BONK (solana) ≈ $21.50');
    expect((await ask(bot, 'positions with pnl')).reply).toMatch(/holds 1 position worth \$21.50[\s\S]*PnL/);
    expect((await ask(bot, 'pending orders')).reply).toMatch(/has 1 open order/);
  });

  it('describes a trading command without executing it, and warns when trading is disabled', async () => {
    const { bot } = makeBot();
    const answer = await ask(bot, 'sell 20 JUP for USDC with 1% slippage');
    expect(answer).toEqual({
      reply: expect.stringContaining('Understood: sell 20 JUP → USDC, slippage 1% (100 bps). Nothing was executed'),
      intent: 'sell',
      params: {
        amount: { kind: 'exact', value: '20', of: 'input' },
        inputToken: { kind: 'symbol', symbol: 'JUP' },
        outputToken: { kind: 'symbol', symbol: 'USDC' },
        slippageBps: 100,
      },
      confidence: 1,
    });
    expect(answer.reply).toContain('trading is disabled for Alpha');
    expect((await ask(bot, 'approve ord_42')).reply).toContain('trading_orders_approve with order_id ord_42');
    expect((await ask(bot, 'buy 1000 BONK with USDC')).reply).toContain('buy USDC → 1000 BONK');
    expect((await ask(bot, 'dca 10 USDC into SOL every day for 5 buys')).reply).toContain('DCA 10 USDC → SOL every 1 days, up to 5 buys');
  });

  it('answers help and unknown messages without reading anything', async () => {
    const { bot, reader } = makeBot();
    expect((await ask(bot, 'help')).reply).toMatch(/buy 0.5 SOL of BONK/);
    const unknown = await ask(bot, 'tell me a joke about frogs and ponds today');
    expect(unknown).toEqual({ reply: expect.stringMatching(/^I did not understand/), intent: 'unknown', confidence: 0 });
    expect(reader.calls).toEqual([]);
  });

  it('propagates a missing subject as 404', async () => {
    const { bot } = makeBot();
    await expect(bot.ask({ subject: { type: 'agent', id: 'missing' }, message: 'status', chatId: 'c' })).rejects.toMatchObject({
      kind: 'not_found',
    });
  });

  it('is stateless: the chat id changes nothing', async () => {
    const { bot } = makeBot();
    expect(await ask(bot, 'swap 100 USDC to SOL', 'chat-a')).toEqual(await ask(bot, 'swap 100 USDC to SOL', 'chat-b'));
  });
});

describe('AskBot with a generative LLM', () => {
  it('lets the model phrase the reply from the facts and the user message', async () => {
    const llm = recordingLlm(async () => 'Alpha is up and running, but trading is off.');
    const { bot } = makeBot(llm);
    expect(await ask(bot, 'status')).toEqual({
      reply: 'Alpha is up and running, but trading is off.',
      intent: 'status',
      params: {},
      confidence: 1,
    });
    const request = llm.requests[0]!;
    expect(request.messages).toEqual([{ role: 'user', content: 'status' }]);
    expect(request.maxTokens).toBeGreaterThan(0);
    expect(request.system).toMatch(/never say that a trade, order, approval or strategy was placed/);
    expect(readLlmFacts(request.system)).toEqual({
      intent: 'status',
      draft: 'Alpha (agent a1) is active; trading is disabled.',
      data: { intent: 'status', params: {}, asOf: '2026-01-01T00:00:00.000Z', status },
    });
  });

  it('marks trading facts as not executed', async () => {
    const llm = recordingLlm(async () => 'ok');
    await ask(makeBot(llm).bot, 'buy 0.5 SOL of BONK');
    expect(readLlmFacts(llm.requests[0]!.system)?.data).toMatchObject({ executed: false, params: { outputToken: { symbol: 'BONK' } } });
  });

  it.each([
    new AppError('LLM_CIRCUIT_BREAKER_OPEN', 'Circuit breaker open for provider: fake', { retryAfterSeconds: 60 }),
    new AppError('LLM_PROVIDER_UNAVAILABLE', 'LLM provider unavailable: fake (timed out after 100 ms)'),
    new AppError('LLM_RATE_LIMIT_EXCEEDED', 'Rate limit exceeded for LLM provider: fake', { retryAfterSeconds: 3 }),
    new TypeError('adapter bug'),
  ])('falls back to the templated reply with degraded: true on %s', async (failure) => {
    const onLlmError = vi.fn();
    const { bot } = makeBot(
      recordingLlm(async () => Promise.reject(failure)),
      onLlmError,
    );
    expect(await ask(bot, 'status')).toEqual({
      reply: 'Alpha (agent a1) is active; trading is disabled.',
      intent: 'status',
      params: {},
      confidence: 1,
      degraded: true,
    });
    expect(onLlmError).toHaveBeenCalledWith(failure);
  });

  it('gives up when the caller aborted', async () => {
    const controller = new AbortController();
    const { bot } = makeBot(
      recordingLlm(async () => {
        controller.abort(new Error('client went away'));
        throw new Error('client went away');
      }),
    );
    await expect(bot.ask({ subject, message: 'status', chatId: 'c', signal: controller.signal })).rejects.toThrow('client went away');
  });

  it('caps a runaway reply', async () => {
    const { bot } = makeBot(recordingLlm(async () => 'x'.repeat(10_000)));
    expect((await ask(bot, 'help')).reply).toHaveLength(4000);
  });
});
