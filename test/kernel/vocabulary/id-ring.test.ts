import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { idRingOf, ringHas, ringIds, ringPush } from '../../../kernel/vocabulary/id-ring.js';

describe('id rings', () => {
  it('knows whole ids only, not a part of one', () => {
    const ring = idRingOf(['ord_ab', 'ord_abc', 'x']);
    expect(ring).toBe('ord_ab\nord_abc\nx');
    expect(ringHas(ring, 'ord_ab')).toBe(true);
    expect(ringHas(ring, 'ord_abc')).toBe(true);
    expect(ringHas(ring, 'x')).toBe(true);
    for (const part of ['ord_a', 'rd_ab', 'b\nord', 'ord_abcd', 'abc', '', '\n']) expect(ringHas(ring, part)).toBe(false);
    expect(ringHas('', 'x')).toBe(false);
  });

  it('reads a ring stored as an array, as a string, or absent', () => {
    expect(idRingOf(undefined)).toBe('');
    expect(idRingOf([])).toBe('');
    expect(idRingOf('a\nb')).toBe('a\nb');
    expect(ringIds(idRingOf(['a', 'b']))).toEqual(['a', 'b']);
    expect(ringIds('')).toEqual([]);
  });

  it('keeps the newest `size` ids and hands back the ones that left, oldest first', () => {
    let ring = '';
    const left: string[] = [];
    for (const id of ['a', 'b', 'c', 'd', 'e']) {
      const pushed = ringPush(ring, id, 3);
      ring = pushed.ring;
      left.push(...pushed.evicted);
    }
    expect(ringIds(ring)).toEqual(['c', 'd', 'e']);
    expect(left).toEqual(['a', 'b']);
    // A ring stored larger than the size (a smaller size configured since) drops several at once.
    expect(ringPush('a\nb\nc\nd', 'e', 2)).toEqual({ ring: 'd\ne', evicted: ['a', 'b', 'c'] });
    expect(ringPush('a', 'b', 0)).toEqual({ ring: 'b', evicted: ['a'] });
  });

  it('refuses an id it could not hold', () => {
    expect(() => ringPush('a', '', 3)).toThrow(RangeError);
    expect(() => ringPush('a', 'b\nc', 3)).toThrow(RangeError);
  });

  it('answers as the array it replaces did, for any ids pushed', () => {
    const id = fc.stringMatching(/^[A-Za-z0-9_.-]{1,12}$/);
    fc.assert(
      fc.property(
        fc.array(id, { maxLength: 40 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(id, { maxLength: 10 }),
        (pushes, size, probes) => {
          let ring = '';
          let array: string[] = [];
          for (const next of pushes) {
            const evictedByArray = array.slice(0, Math.max(0, array.length + 1 - size));
            array = [...array, next].slice(-size);
            const pushed = ringPush(ring, next, size);
            ring = pushed.ring;
            expect(pushed.evicted).toEqual(evictedByArray);
          }
          expect(ringIds(ring)).toEqual(array);
          for (const probe of [...probes, ...pushes]) expect(ringHas(ring, probe)).toBe(array.includes(probe));
        },
      ),
    );
  });
});
