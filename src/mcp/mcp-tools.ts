/**
 * `tools/list`: the catalog's operations as MCP tool descriptors, filtered per credential
 * and paged. JSON Schemas are derived from the operations' zod schemas once per operation.
 */
import { z } from 'zod';
import type { OperationCatalog, Viewer } from '../operations/operation-catalog.js';
import type { AnyOperation } from '../operations/operation.types.js';
import { decodeAfterCursor, encodeAfterCursor } from '../../kernel/shared/after-cursor.js';
import { invalidParams } from './mcp-errors.js';
import type { ListToolsResult, ToolDescriptor } from './mcp-wire.js';
import { portableSchema } from './portable-schema.js';
import { toolViewMeta } from './apps/mcp-views.js';

/** Tools per `tools/list` page; today's catalog fits one page, growing ones page by name. */
export const TOOLS_PAGE_SIZE = 100;

type JsonSchema = Record<string, unknown>;

/**
 * MCP requires `type: "object"` schemas; the 2020-12 dialect is MCP's default, so `$schema`
 * is dropped (smaller lists, and draft-07 validators in older clients do not trip on it).
 * Written in the portable spelling every client accepts (see portable-schema.ts).
 */
function toObjectSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema | undefined {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as JsonSchema;
  return json.type === 'object' ? portableSchema(json) : undefined;
}

/** What a successful call's structured content holds, when the tool declares it (the SDK's types are made from it). */
export function successOutputSchema(operation: AnyOperation): JsonSchema | undefined {
  return operation.output ? toObjectSchema(operation.output, 'output') : undefined;
}

/**
 * The structured content of a refusal (`isError: true`; `ToolRefusal`). Clients check error
 * results against the tool's `outputSchema` too (the official TypeScript client does, and then
 * throws -32602 instead of returning the refusal), so each declared output admits it.
 */
const REFUSAL_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    retryable: { type: 'boolean' },
    retryAfter: { type: 'number', description: 'Seconds to wait before trying again.' },
    hint: { type: 'string', description: 'The next step, when the service knows one.' },
  },
  required: ['code', 'message', 'retryable'],
  additionalProperties: false,
};

function describe(operation: AnyOperation): ToolDescriptor {
  // An input that is not an object (none today) still gets a schema clients accept.
  const inputSchema = toObjectSchema(operation.input, 'input') ?? { type: 'object' };
  const success = successOutputSchema(operation);
  // MCP asks for `type: "object"` at the root: the two shapes are its branches.
  const outputSchema = success ? { type: 'object', anyOf: [success, REFUSAL_SCHEMA] } : undefined;
  const hints = operation.annotations;
  const meta = toolViewMeta(operation.name);
  return {
    name: operation.name,
    description: operation.description,
    inputSchema,
    ...(outputSchema ? { outputSchema } : {}),
    ...(hints
      ? {
          annotations: {
            ...(hints.readOnly === undefined ? {} : { readOnlyHint: hints.readOnly }),
            ...(hints.destructive === undefined ? {} : { destructiveHint: hints.destructive }),
            ...(hints.idempotent === undefined ? {} : { idempotentHint: hints.idempotent }),
          },
        }
      : {}),
    ...(meta ? { _meta: meta } : {}),
  };
}

/** Cursor = the last name of the previous page: stable while the catalog changes between pages. */
function decodeCursor(cursor: string): string {
  const after = decodeAfterCursor(cursor);
  // MCP pagination: an invalid cursor SHOULD be -32602.
  if (after === undefined) throw invalidParams(['cursor is invalid']);
  return after;
}

/** Tool descriptors per viewer; one derivation per operation object for the process's life. */
export class ToolDirectory {
  private readonly descriptors = new WeakMap<AnyOperation, ToolDescriptor>();

  constructor(
    private readonly catalog: OperationCatalog,
    private readonly pageSize = TOOLS_PAGE_SIZE,
  ) {}

  descriptor(operation: AnyOperation): ToolDescriptor {
    let descriptor = this.descriptors.get(operation);
    if (!descriptor) {
      descriptor = describe(operation);
      this.descriptors.set(operation, descriptor);
    }
    return descriptor;
  }

  /** One page of the tools `viewer` may call, in name order. */
  list(viewer: Viewer, cursor?: string): ListToolsResult {
    const visible = this.catalog.visibleTo(viewer);
    const after = cursor === undefined ? undefined : decodeCursor(cursor);
    const start = after === undefined ? 0 : visible.findIndex((operation) => operation.name.localeCompare(after) > 0);
    const page = start < 0 ? [] : visible.slice(start, start + this.pageSize);
    const last = page.at(-1);
    const more = last !== undefined && start + page.length < visible.length;
    return { tools: page.map((operation) => this.descriptor(operation)), ...(more ? { nextCursor: encodeAfterCursor(last.name) } : {}) };
  }
}
