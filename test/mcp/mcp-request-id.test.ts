/**
 * JSON-RPC ids come back exactly as sent: a numeric id a double cannot
 * hold (above 2^53, 1e400, -0) used to come back rounded or as null. Raw bodies over HTTP
 * against the handler, reading the answer's text (a JSON.parse of it would round again),
 * plus the top-level scanner on the shapes that could fool it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NumericIdText, stringifyRpcResponse, topLevelMemberText } from '../../src/mcp/mcp-request-id.js';
import { rawRpc } from '../support/mcp-fixtures.js';
import { PUBLIC_ID, startUnitHarness, type UnitHarness } from '../support/mcp-unit-harness.js';

/** The id exactly as the answer's text spells it. */
function idText(text: string): string {
  const match = /^\{"jsonrpc":"2\.0","id":(.*?),"(?:result|error)":/.exec(text);
  if (!match) throw new Error(`unexpected answer: ${text}`);
  return match[1]!;
}

describe('MCP ids echoed as sent (e2e over the handler)', () => {
  let h: UnitHarness;
  beforeAll(async () => {
    h = await startUnitHarness();
  });
  afterAll(() => h.close());

  const send = (body: string, auth: string | null = 'read', headers: Record<string, string> = {}) =>
    rawRpc(h.url, PUBLIC_ID, body, { ...(auth === null ? {} : { authorization: `Bearer ${auth}` }), ...headers });

  it.each([
    '9007199254740993',
    '-9007199254740993',
    '123456789012345678901234567890',
    '1e400',
    '-1e400',
    '1E+2',
    '1.5',
    '1.0',
    '-0',
    '0.1000000000000000055511151231257827',
  ])('numeric id %s comes back in a result as sent', async (id) => {
    const answer = await send(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    expect(answer.status).toBe(200);
    expect(idText(answer.text)).toBe(id);
    expect(answer.body.result).toEqual({});
  });

  it('small integer and string ids are unchanged', async () => {
    expect((await send('{"jsonrpc":"2.0","id":7,"method":"ping"}')).text).toBe('{"jsonrpc":"2.0","id":7,"result":{}}');
    expect(idText((await send('{"jsonrpc":"2.0","id":"9007199254740993","method":"ping"}')).text)).toBe('"9007199254740993"');
    expect(idText((await send('{"jsonrpc":"2.0","id":"a\\"b\\u0041","method":"ping"}')).text)).toBe('"a\\"bA"');
  });

  it('ids nested in params or inside strings are not the request id; the top-level one is, wherever it stands', async () => {
    const body =
      '{"method":"tools/call","params":{"name":"order_approve_tool","id":1,"_meta":{"id":2,"note":"\\"id\\":3 }]"},' +
      '"arguments":{"order_id":"{\\"id\\":4}"}},"jsonrpc":"2.0" , "id" :\n9007199254740993 }';
    const answer = await send(body);
    expect(idText(answer.text)).toBe('9007199254740993');
    expect(answer.body.result.isError).toBe(false);
  });

  it('errors carry the exact id too: method, params, tool, scope, credential, protocol header, envelope', async () => {
    const big = '9007199254740993';
    const cases: Array<[string, string | null, Record<string, string>, number, number]> = [
      [`{"jsonrpc":"2.0","id":${big},"method":"prompts/list"}`, 'read', {}, 200, -32601],
      [`{"jsonrpc":"2.0","id":${big},"method":"tools/call","params":{}}`, 'read', {}, 200, -32602],
      [`{"jsonrpc":"2.0","id":${big},"method":"tools/call","params":{"name":"crash_tool"}}`, 'read', {}, 200, -32603],
      [`{"jsonrpc":"2.0","id":${big},"method":"tools/call","params":{"name":"trade_tool"}}`, 'read', {}, 403, -32003],
      [`{"jsonrpc":"2.0","id":${big},"method":"ping"}`, null, {}, 401, -32001],
      [`{"jsonrpc":"2.0","id":${big},"method":"ping"}`, 'read', { 'mcp-protocol-version': '1999-01-01' }, 400, -32600],
      [`{"id":${big},"method":"ping"}`, 'read', {}, 400, -32600],
      [`{"jsonrpc":"2.0","id":${big}}`, 'read', {}, 400, -32600],
    ];
    for (const [body, auth, headers, status, code] of cases) {
      const answer = await send(body, auth, headers);
      expect({ body, status: answer.status, code: answer.body.error.code }).toEqual({ body, status, code });
      expect(idText(answer.text)).toBe(big);
    }
  });

  it('a duplicated id member answers with the last one, as JSON.parse reads it; an escaped key name is the same key', async () => {
    expect(idText((await send('{"jsonrpc":"2.0","id":1,"method":"ping","id":9007199254740993}')).text)).toBe('9007199254740993');
    expect(idText((await send('{"jsonrpc":"2.0","id":9007199254740993,"method":"ping","id":2}')).text)).toBe('2');
    expect(idText((await send('{"jsonrpc":"2.0","\\u0069d":-9007199254740993,"method":"ping"}')).text)).toBe('-9007199254740993');
  });

  it('no id still means no readable id: parse errors and batches answer null', async () => {
    expect(idText((await send('{"jsonrpc":"2.0","id":9007199254740993,')).text)).toBe('null');
    expect(idText((await send('[{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}]')).text)).toBe('null');
  });
});

describe('topLevelMemberText', () => {
  it.each([
    ['{"id":1}', '1'],
    [' {\t"id"\r\n:\n-12.5e-3 }', '-12.5e-3'],
    ['{"a":{"id":1},"b":[{"id":2},"]}\\"\\\\"],"id":3}', '3'],
    ['{"a":"\\\\","id":true}', 'true'],
    ['{"idx":1,"xid":2,"i\\"d":3}', undefined],
    ['{"\\u0069\\u0064":5}', '5'],
    ['{"id":{"id":1}}', '{"id":1}'],
    ['{"id":[1,"]",{"x":"}"}],"y":0}', '[1,"]",{"x":"}"}]'],
    ['{}', undefined],
    ['[{"id":1}]', undefined],
    ['"id"', undefined],
  ])('%s → %s', (text, expected) => {
    JSON.parse(text); // the scanner's precondition: valid JSON
    expect(topLevelMemberText(text, 'id')).toBe(expected);
  });

  it('stringifyRpcResponse splices the literal in and leaves the rest as JSON.stringify writes it', () => {
    const body = { jsonrpc: '2.0', id: new NumericIdText('1e400'), error: { code: -32601, message: 'Method not found' } };
    expect(stringifyRpcResponse(body)).toBe('{"jsonrpc":"2.0","id":1e400,"error":{"code":-32601,"message":"Method not found"}}');
    expect(stringifyRpcResponse({ jsonrpc: '2.0', id: 'x', result: { a: [1] } })).toBe('{"jsonrpc":"2.0","id":"x","result":{"a":[1]}}');
  });
});
