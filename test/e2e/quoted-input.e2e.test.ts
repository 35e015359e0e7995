/**
 * Input quoted back never carries a control or bidirectional formatting character: each place
 * that names the caller's words (unknown field names, a token or launchpad not found, chat
 * replies and the echoed chat id, a widget event's detail shown to the owner, an unknown tool)
 * writes them escaped, `U+202E` as the six characters `\u202e`, on REST and MCP alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';
import { Client, startTestService, type TestService } from '../support/test-service.js';

const RLO = '\u202e';
const SITE = 'https://shop.example.com';

describe('input quoted back is escaped (e2e)', () => {
  let svc: TestService;
  let alice: Operator;
  let agent: { agentId: string; publicId: string };
  let readKey: string;
  const tool = (name: string, args: Record<string, unknown>, id = 1) =>
    rawRpc(svc.url, agent.publicId, { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, bearer(readKey));

  beforeAll(async () => {
    svc = await startTestService();
    alice = await Operator.signIn(svc);
    agent = await alice.agent('quoting');
    readKey = (await alice.agentKey(agent.agentId, 'read')).secret;
  });
  afterAll(() => svc.stop());

  it('an unknown field name comes back escaped, on REST and MCP', async () => {
    const rest = await alice.client.post('/api/nest/agents', { name: 'x', [`ev${RLO}il\u0007`]: 1 });
    expect(rest.status).toBe(400);
    expect(rest.body.message).toEqual(['ev\\u202eil\\u0007 is not a known field']);
    const mcp = await tool('ask_bot', { message: 'status', chat_id: 'c', [`a${RLO}b`]: 1 });
    expect(mcp.body.error).toEqual({ code: -32602, message: 'INVALID_PARAMS: a\\u202eb is not a known field' });
  });

  it('a token or launchpad not found names it escaped', async () => {
    const quote = await alice.client.post(`/api/nest/trading/evm/quote/${alice.userId}`, {
      chainId: 1,
      sellToken: `US${RLO}DC`,
      buyToken: 'WETH',
      sellAmount: '1',
    });
    expect(quote).toMatchObject({ status: 404, body: { message: 'Token not found: US\\u202eDC' } });
    const pad = await alice.client.put(
      `/api/nest/trading/config/${alice.userId}/launchpads/${encodeURIComponent(`pad${RLO}\u2066`)}/toggle`,
    );
    expect(pad).toMatchObject({ status: 404, body: { message: 'Launchpad not found: pad\\u202e\\u2066' } });
  });

  it("the token risk report's query comes back escaped", async () => {
    const report = await tool('trading_token_risk_report', { token: `B${RLO}ONK` });
    expect(report.body.result.structuredContent).toMatchObject({ query: 'B\\u202eONK', listed: false });
  });

  it('chat replies and the echoed chat_id are escaped (ask_bot over MCP, bot_chat over REST)', async () => {
    const asked = await tool('ask_bot', { message: `buy 1 SOL of B${RLO}ONK`, chat_id: `chat${RLO}\u200b1` });
    expect(asked.body.result.structuredContent).toMatchObject({
      chat_id: 'chat\\u202e\\u200b1',
      reply: '"B\\u202eONK" is not a token symbol or address.',
    });
    const bot = (await alice.client.post('/api/nest/bots', { name: 'Quoting bot' })).body.id as string;
    const chat = await alice.client.post(`/api/nest/bots/${bot}/chat`, { message: `sell 1 \u0085X${RLO}Y`, chat_id: `web\u0000${RLO}` });
    expect(chat.status).toBe(200);
    expect(chat.body).toMatchObject({ chat_id: 'web\\u0000\\u202e', reply: '"\\u0085X\\u202eY" is not a token symbol or address.' });
  });

  it("a widget event's detail is shown to the owner escaped", async () => {
    const bot = (await alice.client.post('/api/nest/bots', { name: 'Shop bot' })).body.id as string;
    expect((await alice.client.put(`/api/nest/bots/${bot}/widget-config`, { allowedOrigins: [SITE] })).status).toBe(200);
    const visitor = new Client(svc.url);
    const session = (await visitor.post(`/api/widget/${bot}/init`, {}, { origin: SITE })).body.sessionToken as string;
    const page = { origin: SITE, authorization: `Bearer ${session}` };
    const sent = await visitor.post(`/api/widget/${bot}/client-event`, { type: 'error', detail: `pay ${RLO}001$\u001b[2J` }, page);
    expect(sent.status).toBe(202);
    const events = await alice.client.get(`/api/nest/bots/${bot}/widget-events?limit=1`);
    expect(events.body.events).toEqual([expect.objectContaining({ type: 'error', detail: 'pay \\u202e001$\\u001b[2J' })]);
  });

  it('an unknown tool named in a granular error is escaped', async () => {
    const bot = await alice.botWithKey({ granularErrors: true });
    const call = await rawRpc(
      svc.url,
      bot.publicId,
      { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: `trade${RLO}`, arguments: {} } },
      bearer(bot.secret),
    );
    expect(call.body.error).toEqual({ code: -32601, message: 'Tool not found: trade\\u202e' });
  });
});
