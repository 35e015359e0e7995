/**
 * Writes `sdk/src/generated/tools.ts`: the input and output types of every catalog operation
 * a client can call (agent and legacy-bot keys over MCP, operators over REST), derived from
 * the operations' zod schemas exactly as `tools/list` sends them (ToolDirectory). The catalog
 * is the one the service builds: the real composition root, started on a throwaway data
 * directory. A test fails when the file is stale.
 *
 *   npx tsx scripts/generate-sdk-types.ts            # write the file
 *   npx tsx scripts/generate-sdk-types.ts --check    # exit 1 when it is stale
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { startService } from '../src/composition/service.composition.js';
import { loadConfig } from '../src/config/load-config.js';
import { resolveSecrets } from '../src/config/secrets.js';
import { z } from 'zod';
import { publicCardSchema, snapshotSchema } from '../src/directory/card.schemas.js';
import { successOutputSchema, ToolDirectory } from '../src/mcp/mcp-tools.js';
import { IDEMPOTENCY_FIELD } from '../src/operations/operation-definition.js';
import type { AnyOperation } from '../src/operations/operation.types.js';
import { schemaToType } from './json-schema-to-ts.js';
import { CHAINS, chainLabel, EVM_CHAIN_IDS, isEvmChain, walletChainOf } from '../kernel/vocabulary/chains.js';
import { SCOPES } from '../kernel/vocabulary/scopes.js';

export const GENERATED_TYPES_PATH = fileURLToPath(new URL('../sdk/src/generated/tools.ts', import.meta.url));

/** Operations a client reaches: ops-token and system (due-job) operations are the service's own. */
const forClients = (operation: AnyOperation) =>
  operation.principals.some((kind) => kind === 'agent' || kind === 'bot' || kind === 'operator');
const pascal = (name: string) => name.replace(/(^|_)([a-z0-9])/g, (_m, _s, c: string) => c.toUpperCase());

/**
 * A money tool requires `idempotencyKey` on the wire, and the SDK gives every call one (the
 * same on its retries): its callers may leave it out, so the generated input says optional.
 */
function keyOptional(schema: Record<string, unknown>): Record<string, unknown> {
  const required = schema.required;
  if (!Array.isArray(required) || !required.includes(IDEMPOTENCY_FIELD)) return schema;
  return { ...schema, required: required.filter((name) => name !== IDEMPOTENCY_FIELD) };
}

/** The public directory's answers (not catalog operations: no principal calls them), from the schemas its routes answer with. */
function directoryTypes(): string[] {
  const type = (schema: z.ZodType) => schemaToType(z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' }));
  return [
    '\n/** A published agent card as the public directory shows it (`GET /api/public/erc8004/agents/:publicId`). */\n',
    `export type DirectoryCard = ${type(publicCardSchema)};\n\n`,
    '/** A page of the directory or the discovery feed; no `nextCursor`: the last page. */\n',
    'export type DirectoryPage = { items: DirectoryCard[]; nextCursor?: string };\n\n',
    "/** A published agent's portfolio snapshot (`GET /api/public/erc8004/agents/:publicId/snapshot`), rounded, without addresses. */\n",
    `export type AgentSnapshot = ${type(snapshotSchema)};\n`,
  ];
}

/**
 * The service's vocabulary as the SDK and the console need it at run time (the catalog's types
 * carry the names, not the lists): the chains with their wallet family, display name and
 * EIP-155 id, and the key scopes. Written from the kernel's tables, so a new chain reaches
 * clients by regenerating this file.
 */
function vocabulary(): string[] {
  const rows = CHAINS.map((chain) => {
    const id = isEvmChain(chain) ? `, evmChainId: ${EVM_CHAIN_IDS[chain]}` : '';
    return `  { chain: '${chain}', family: '${walletChainOf(chain)}', label: '${chainLabel(chain)}'${id} },\n`;
  });
  return [
    '\n/** The chains the service trades on, in its order: wallet family (one EVM wallet serves every EVM chain), display name, EIP-155 id. */\n',
    `export const CHAINS = [\n${rows.join('')}] as const;\n\n`,
    '/** A chain the service trades on. */\n',
    "export type Chain = (typeof CHAINS)[number]['chain'];\n\n",
    '/** The scopes of an API key, cumulative: read < trade < manage. */\n',
    `export const KEY_SCOPES = [${SCOPES.map((scope) => `'${scope}'`).join(', ')}] as const;\n`,
  ];
}

/** The generated module's text for the catalog of a freshly built service. */
export async function renderSdkTypes(): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sdk-types-'));
  const config = loadConfig({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const service = await startService({
    config,
    secrets: resolveSecrets({ profile: config.profile, dataDir, env: {} }),
    logger: pino({ level: 'silent' }),
  });
  try {
    const catalog = service.operations.catalog;
    const directory = new ToolDirectory(catalog);
    const operations = catalog
      .all()
      .filter(forClients)
      .sort((a, b) => a.name.localeCompare(b.name));
    const blocks: string[] = [];
    const entries: string[] = [];
    for (const operation of operations) {
      const descriptor = directory.descriptor(operation);
      const name = pascal(operation.name);
      blocks.push(
        `/** Input of \`${operation.name}\`. */\nexport type ${name}Input = ${schemaToType(keyOptional(descriptor.inputSchema))};\n\n`,
      );
      blocks.push(
        `/** Output of \`${operation.name}\`. */\nexport type ${name}Output = ${schemaToType(successOutputSchema(operation))};\n\n`,
      );
      const guarded = Object.hasOwn((descriptor.inputSchema.properties as Record<string, unknown> | undefined) ?? {}, 'idempotencyKey');
      const firstLine = operation.description.split('\n')[0]!.replaceAll('*/', '*\\/');
      entries.push(
        `  /** ${firstLine} */\n  ${operation.name}: { input: ${name}Input; output: ${name}Output; minScope: '${operation.minScope}'; tool: ${operation.principals.includes('agent')}; guarded: ${guarded} };\n`,
      );
    }
    const guardedNames = operations.filter((operation) =>
      Object.hasOwn((directory.descriptor(operation).inputSchema.properties as object | undefined) ?? {}, 'idempotencyKey'),
    );
    return [
      "// Generated by scripts/generate-sdk-types.ts from the catalog's zod schemas. Do not edit: run `npx tsx scripts/generate-sdk-types.ts`.\n\n",
      ...blocks,
      '/** Every operation a client can call: its input, output, minimum scope, whether agent keys call it as an MCP tool, and whether it takes an idempotency key. */\n',
      `export interface Operations {\n${entries.join('')}}\n\n`,
      '/** Names of the operations agent keys call as MCP tools. */\n',
      "export type ToolName = { [N in keyof Operations]: Operations[N]['tool'] extends true ? N : never }[keyof Operations];\n\n",
      '/** Operations that move funds or create wallets: the SDK gives each call an idempotency key. */\n',
      `export const GUARDED_OPERATIONS: ReadonlySet<string> = new Set([${guardedNames.map((operation) => `'${operation.name}'`).join(', ')}]);\n`,
      ...directoryTypes(),
      ...vocabulary(),
    ].join('');
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await renderSdkTypes();
  if (process.argv.includes('--check')) {
    const current = readFileSync(GENERATED_TYPES_PATH, 'utf8');
    if (current !== text) {
      console.error(`${GENERATED_TYPES_PATH} is stale: run npx tsx scripts/generate-sdk-types.ts`);
      process.exit(1);
    }
  } else {
    writeFileSync(GENERATED_TYPES_PATH, text);
    console.log(`wrote ${GENERATED_TYPES_PATH}`);
  }
}
