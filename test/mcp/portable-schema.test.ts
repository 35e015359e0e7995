import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { portableSchema } from '../../src/mcp/portable-schema.js';
import { lintToolSchema } from '../support/tool-schema-lint.js';

const ajv = new Ajv2020({ strict: false });
const SAMPLES: unknown[] = [null, 'a', 'abc', '', 1, 1.5, -3, true, {}, { a: 1 }, [], ['x'], [null]];

/** The rewritten schema accepts exactly what the original did, on a spread of values. */
function expectSameVerdicts(original: Record<string, unknown>): void {
  const before = ajv.compile(original);
  const after = ajv.compile(portableSchema(original));
  for (const sample of SAMPLES) expect([sample, after(sample)]).toEqual([sample, before(sample)]);
}

describe('portableSchema', () => {
  it('splits type arrays into anyOf branches that keep every assertion', () => {
    const schema = {
      type: 'object',
      properties: { price: { type: ['string', 'null'], pattern: '^a', description: 'a price' } },
      required: ['price'],
    };
    const out = portableSchema(schema);
    expect(out.properties).toEqual({
      price: {
        description: 'a price',
        anyOf: [
          { pattern: '^a', type: 'string' },
          { pattern: '^a', type: 'null' },
        ],
      },
    });
    expect(lintToolSchema(out)).toEqual([]);
    for (const value of [{ price: 'abc' }, { price: null }, { price: 'b' }, { price: 1 }, {}]) {
      expect(ajv.validate(out, value)).toBe(ajv.validate(schema, value));
    }
  });

  it('keeps an enum that refuses null, and an anyOf of its own', () => {
    expectSameVerdicts({ type: ['string', 'null'], enum: ['a', 'abc'] });
    expectSameVerdicts({ type: ['number', 'string'], anyOf: [{ minimum: 0 }, { minLength: 2 }] });
    expectSameVerdicts({ type: ['array', 'null'], items: { type: ['string', 'null'] } });
  });

  it('writes {} in boolean positions as true', () => {
    const out = portableSchema(z.toJSONSchema(z.object({ params: z.record(z.string(), z.unknown()) })) as Record<string, unknown>);
    expect((out.properties as any).params.additionalProperties).toBe(true);
    expect(lintToolSchema(out)).toEqual([]);
  });

  it('finds what zod writes for nullable fields before the rewrite (the test would fail without it)', () => {
    const json = z.toJSONSchema(z.object({ a: z.string().nullable(), b: z.number().nullable() })) as Record<string, unknown>;
    expect(lintToolSchema(json).length).toBeGreaterThan(0);
    expect(lintToolSchema(portableSchema(json))).toEqual([]);
  });
});
