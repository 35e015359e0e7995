/**
 * Human-chosen names are echoed to consoles, logs and terminals: control characters,
 * bidirectional formatting and lone surrogates are refused with a 400 naming the field
 *, on every route that takes a name.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../support/test-service.js';
import { Operator } from '../support/mcp-fixtures.js';

const HOSTILE: Record<string, string> = {
  NUL: 'a\u0000b',
  ESC: 'a\u001b[31mred',
  'CR/LF': 'forged\r\nline',
  DEL: 'a\u007fb',
  C1: 'a\u0085b',
  'U+202E': 'cod\u202Eexe.txt',
  'U+2066': 'a\u2066b',
  'U+200F': 'a\u200Fb',
  'U+061C': 'a\u061Cb',
  'lone surrogate': 'a\uD800b',
  'zero-width space': 'a\u200Bb',
  'word joiner': 'a\u2060b',
  BOM: 'a\uFEFFb',
};
const REFUSED = 'must not contain control characters, invisible or bidirectional formatting characters or unpaired surrogates';

describe('names (e2e)', () => {
  let svc: TestService;
  let alice: Operator;
  let agentId: string;
  let botId: string;

  beforeAll(async () => {
    svc = await startTestService();
    alice = await Operator.signIn(svc);
    agentId = (await alice.agent('names')).agentId;
    botId = (await alice.client.post('/api/nest/bots', { name: 'names-bot' })).body.id;
  });
  afterAll(() => svc.stop());

  it('every name field refuses control, bidi and unpaired surrogate characters, naming the field', async () => {
    for (const [what, name] of Object.entries(HOSTILE)) {
      const requests = [
        alice.client.post('/api/nest/agents', { name }),
        alice.client.post('/api/nest/bots', { name }),
        alice.client.patch(`/api/nest/bots/${botId}`, { name }),
        alice.client.put(`/api/nest/bots/${botId}`, { name, description: '', tradingEnabled: false }),
        alice.client.post(`/api/nest/agents/${agentId}/keys`, { name, scope: 'read' }),
        alice.client.post(`/api/nest/bots/${botId}/mcp/keys`, { name, scope: 'read' }),
        alice.client.post(`/api/nest/trading/evm/wallets/${alice.userId}`, {
          address: '0x00000000000000000000000000000000000000a1',
          label: name,
        }),
      ];
      const labels = ['agent', 'bot', 'bot PATCH', 'bot PUT', 'agent key', 'bot key'];
      for (const [i, answer] of (await Promise.all(requests)).entries()) {
        expect(answer.status, `${what} ${labels[i] ?? 'wallet label'}`).toBe(400);
        expect(answer.body.message, `${what} ${labels[i] ?? 'wallet label'}`).toEqual([`${i === 6 ? 'label' : 'name'}: ${REFUSED}`]);
      }
    }
    // Strategy names are identifiers (a path segment of DELETE): their stricter pattern refuses all of these too.
    for (const name of Object.values(HOSTILE)) {
      const strategy = await alice.client.post(`/api/nest/trading/strategies/${alice.userId}`, {
        name,
        inputToken: 'USDC',
        outputToken: 'SOL',
        amount: '1',
        interval: 'every 1 hours',
      });
      expect(strategy.status).toBe(400);
      expect(strategy.body.message).toEqual([expect.stringMatching(/^name: must be 1-64 letters/)]);
    }
    // Nothing was created or renamed on the way.
    expect((await alice.client.get('/api/nest/agents')).body.items).toHaveLength(1);
    expect((await alice.client.get(`/api/nest/bots/${botId}`)).body.name).toBe('names-bot');
  });

  it("a bot's description is free text: paragraphs and tabs kept, every other hostile character refused on POST, PUT and PATCH", async () => {
    const TEXT_REFUSED =
      'must not contain control characters other than tab and line feed, invisible or bidirectional formatting characters or unpaired surrogates';
    for (const [what, description] of Object.entries(HOSTILE)
      .filter(([what]) => what !== 'CR/LF')
      .concat([['CR', 'a\rb']])) {
      const answers = await Promise.all([
        alice.client.post('/api/nest/bots', { name: 'described', description }),
        alice.client.patch(`/api/nest/bots/${botId}`, { description }),
        alice.client.put(`/api/nest/bots/${botId}`, { name: 'names-bot', description, tradingEnabled: false }),
      ]);
      for (const answer of answers) {
        expect(answer.status, what).toBe(400);
        expect(answer.body.message, what).toEqual([`description: ${TEXT_REFUSED}`]);
      }
    }
    const text = 'Buys SOL weekly.\n\n\tRisk: low. Café 🚀 وكيل';
    const patched = await alice.client.patch(`/api/nest/bots/${botId}`, { description: text });
    expect(patched.status).toBe(200);
    expect(patched.body.description).toBe(text);
  });

  it('ordinary names keep working: accents, emoji (a surrogate pair), CJK, RTL script without overrides', async () => {
    for (const name of ['Café déjà vu', 'rocket 🚀', 'team 👩\u200D💻', '取引ボット', 'وكيل التداول', 'می\u200Cخواهم']) {
      const created = await alice.client.post('/api/nest/bots', { name });
      expect(created.status, name).toBe(201);
      expect(created.body.name).toBe(name);
    }
  });
});
