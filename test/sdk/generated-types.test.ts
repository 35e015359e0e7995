/**
 * The SDK's tool types are generated from the catalog the service builds: the checked-in file
 * must be what the generator writes today, and the emitter writes the types the schemas mean.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GENERATED_TYPES_PATH, renderSdkTypes } from '../../scripts/generate-sdk-types.js';
import { schemaToType } from '../../scripts/json-schema-to-ts.js';

describe('generated SDK types', () => {
  it('sdk/src/generated/tools.ts is up to date with the catalog (run npm run generate:sdk-types)', async () => {
    expect(readFileSync(GENERATED_TYPES_PATH, 'utf8')).toBe(await renderSdkTypes());
  });

  it('emits what a zod schema means: optional fields, unions, enums, records, arrays, nullables, literals', () => {
    const schema = z.object({
      name: z.string().describe('The name'),
      count: z.number().int().optional(),
      side: z.enum(['buy', 'sell']),
      amount: z.union([z.string(), z.number()]),
      tags: z.array(z.string()),
      note: z.string().nullable(),
      kind: z.literal('order'),
      byChain: z.record(z.enum(['solana', 'base']), z.number()),
      'odd-name': z.boolean(),
    });
    const type = schemaToType(z.toJSONSchema(schema, { io: 'input' }));
    expect(type).toBe(
      [
        '{',
        '  /** The name */',
        '  name: string;',
        '  count?: number;',
        '  side: "buy" | "sell";',
        '  amount: string | number;',
        '  tags: string[];',
        '  note: string | null;',
        '  kind: "order";',
        '  byChain: Partial<Record<"solana" | "base", number>>;',
        '  "odd-name": boolean;',
        '}',
      ].join('\n'),
    );
    expect(schemaToType(z.toJSONSchema(z.object({}).strict()))).toBe('Record<string, never>');
    expect(schemaToType({})).toBe('unknown');
  });
});
