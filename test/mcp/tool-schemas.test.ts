/**
 * Every tool of the real service's catalog, as `tools/list` sends it: its input and output
 * schemas pass the portability checks MCP clients apply (the Inspector's four rules), and
 * every input property a caller fills in, nested ones included, says what it is. Checked
 * on the descriptors the directory derives from every operation (operator-only tools too)
 * and on a real `tools/list` over HTTP with a manage key.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolDirectory } from '../../src/mcp/mcp-tools.js';
import type { ToolDescriptor } from '../../src/mcp/mcp-wire.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { lintToolSchema } from '../support/tool-schema-lint.js';
import { bearer, Operator, rawRpc } from '../support/mcp-fixtures.js';

const TOKEN = '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48';
const SPENDER = '0x1111111254EEB25477B68fb85Ed929f73A960582';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * `<path>` of every property without a description: the object's own properties, then the
 * properties of objects inside them (through arrays, `anyOf` branches and maps).
 */
function undescribedProperties(schema: Json, path = ''): string[] {
  const missing: string[] = [];
  const visit = (node: unknown, at: string): void => {
    if (!isObject(node)) return;
    if (isObject(node.properties)) {
      for (const [name, property] of Object.entries(node.properties)) {
        const where = at ? `${at}.${name}` : name;
        if (!isObject(property) || typeof property.description !== 'string' || property.description.trim() === '') missing.push(where);
        visit(property, where);
      }
    }
    for (const key of ['anyOf', 'oneOf', 'allOf', 'prefixItems'])
      if (Array.isArray(node[key])) for (const branch of node[key] as unknown[]) visit(branch, at);
    for (const key of ['items', 'additionalProperties']) visit(node[key], `${at}[]`);
  };
  visit(schema, path);
  return missing;
}

/** Every problem of one descriptor as `<tool> <where>: <what>`. */
function problemsOf(tool: ToolDescriptor): string[] {
  const lint = [
    ...lintToolSchema(tool.inputSchema, 'inputSchema'),
    ...(tool.outputSchema ? lintToolSchema(tool.outputSchema, 'outputSchema') : []),
  ];
  const undescribed = undescribedProperties(tool.inputSchema as Json).map((path) => `inputSchema.${path}: no description`);
  return [...lint, ...undescribed].map((problem) => `${tool.name} ${problem}`);
}

describe('tool schemas as tools/list sends them', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService();
  });
  afterAll(async () => {
    await svc.stop();
  });

  it('every tool of the catalog: portable schemas, every input property described', () => {
    const catalog = svc.service.operations.catalog;
    const directory = new ToolDirectory(catalog);
    const tools = catalog.all().map((operation) => directory.descriptor(operation));
    // The whole catalog, operator-only tools (the paper faucet) included.
    expect(tools.length).toBeGreaterThanOrEqual(55);
    expect(tools.map((tool) => tool.name)).toContain('trading_paper_faucet');
    expect(tools.flatMap(problemsOf)).toEqual([]);
  });

  it('the checks find what they look for (an undescribed nested property, a type array)', () => {
    const schema = {
      type: 'object',
      properties: { a: { type: 'object', description: 'x', properties: { b: { type: ['string', 'null'] } } } },
    };
    expect(problemsOf({ name: 't', description: '', inputSchema: schema } as ToolDescriptor)).toEqual([
      't inputSchema.properties.a.properties.b: type is an array ["string","null"]',
      't inputSchema.a.b: no description',
    ]);
  });

  it('a real tools/list over HTTP with a manage key holds the same', async () => {
    const operator = await Operator.signIn(svc);
    const { agentId, publicId } = await operator.agent('schema-agent');
    const { secret } = await operator.agentKey(agentId, 'manage');
    const tools: ToolDescriptor[] = [];
    let cursor: string | undefined;
    do {
      const answer = await rawRpc(
        svc.url,
        publicId,
        { jsonrpc: '2.0', id: 1, method: 'tools/list', params: cursor ? { cursor } : {} },
        bearer(secret),
      );
      expect(answer.status).toBe(200);
      tools.push(...(answer.body.result.tools as ToolDescriptor[]));
      cursor = answer.body.result.nextCursor as string | undefined;
    } while (cursor);
    expect(tools.length).toBeGreaterThanOrEqual(50);
    expect(tools.flatMap(problemsOf)).toEqual([]);
    // Spot check: a shared piece keeps its description where it is used, and an amount says its unit.
    const swap = tools.find((tool) => tool.name === 'trading_solana_aggregator_swap')!;
    const properties = (swap.inputSchema as Json).properties as Record<string, Json>;
    expect(properties.idempotencyKey!.description).toMatch(/UUID v4/);
    expect(properties.amount!.description).toMatch(/base units/);
  });

  it("the OpenAPI document: path parameters carry their field's description, response schemas none of the inputs'", async () => {
    const document = (await (await fetch(`${svc.url}/api/nest/openapi.json`)).json()) as any;
    const remove = document.paths['/api/nest/trading/strategies/{userId}/{strategyName}'].delete;
    const parameter = remove.parameters.find((p: Json) => p.name === 'strategyName');
    expect(parameter).toMatchObject({ in: 'path', required: true, description: expect.stringMatching(/^Name of the DCA strategy/) });
    expect(parameter.schema.description).toBeUndefined();
    // `chain` of a token list entry is the input's enum: its input description stays with the input.
    const add = document.paths['/api/nest/trading/config/{userId}/favorites'].post;
    expect(add.requestBody.content['application/json'].schema.properties.chain.description).toMatch(/^Chain of the token/);
    expect(add.responses['200'].content['application/json'].schema.properties.chain.description).toBeUndefined();
  });

  it('an approval amount is taken as a safe JSON integer too; 0, fractions and larger numbers are refused with one message each', async () => {
    const operator = await Operator.signIn(svc);
    const { agentId, publicId } = await operator.agent('approvals-agent');
    const { secret } = await operator.agentKey(agentId, 'manage');
    const call = (name: string, args: Json) =>
      rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } }, bearer(secret));
    expect((await call('trading_evm_wallet_create_custodial', { idempotencyKey: randomUUID() })).body.result.isError).toBe(false);
    const record = (amount: unknown) =>
      call('trading_evm_approval_record', { chain: 'base', token: TOKEN, spender: SPENDER, amount, idempotencyKey: randomUUID() });

    const recorded = await record(1_000_000);
    expect(recorded.body.result).toMatchObject({ isError: false, structuredContent: { amount: '1000000', status: 'active' } });
    expect((await record(Number.MAX_SAFE_INTEGER)).body.result.structuredContent.amount).toBe(String(Number.MAX_SAFE_INTEGER));
    expect((await record('unlimited')).body.result.structuredContent.amount).toBe('unlimited');
    const refusal = async (amount: unknown) => (await record(amount)).body.error;
    const shape = 'INVALID_PARAMS: amount: must be a positive integer in base units or "unlimited"';
    expect(await refusal(0)).toEqual({ code: -32602, message: shape });
    expect(await refusal('0')).toEqual({ code: -32602, message: shape });
    expect(await refusal('max')).toEqual({ code: -32602, message: shape });
    expect(await refusal(-5)).toEqual({ code: -32602, message: 'INVALID_PARAMS: amount: must not be negative' });
    for (const amount of [2 ** 60, 1.5]) {
      expect(await refusal(amount)).toEqual({
        code: -32602,
        message: `INVALID_PARAMS: amount: must be sent as a string: JSON numbers are taken only as integers from 0 to ${Number.MAX_SAFE_INTEGER} (larger ones lose digits)`,
      });
    }
  });

  it('a wallet tool refuses a malformed idempotency key with the message every guarded tool uses', async () => {
    const operator = await Operator.signIn(svc);
    const { agentId, publicId } = await operator.agent('wallet-key-agent');
    const { secret } = await operator.agentKey(agentId, 'manage');
    const call = (name: string, args: Json) =>
      rawRpc(svc.url, publicId, { jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name, arguments: args } }, bearer(secret));
    const expected = { code: -32602, message: 'INVALID_PARAMS: idempotencyKey: must be a UUID v4' };
    expect((await call('trading_evm_wallet_create_custodial', { idempotencyKey: 'not-a-uuid' })).body.error).toEqual(expected);
    expect(
      (await call('trading_solana_aggregator_swap', { inputMint: 'x', outputMint: 'y', amount: '1', idempotencyKey: 'not-a-uuid' })).body
        .error,
    ).toEqual(expected);
  });
});
