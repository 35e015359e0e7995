/**
 * What a full settled-id ring costs a fill, in the array form documents were written in before
 * and in the one-string form (`kernel/vocabulary/id-ring.ts`). Printed, not asserted.
 * Run: `npm run bench:id-ring`.
 *
 * Each fill reads and writes three documents that carry a ring (the wallet's balances and both
 * positions). Per document, as the store and the services do it: the stored record decoded
 * (v8 deserialise and freeze, `decodeDocument`), the ring checked for the order id, the next
 * document built with the id pushed (the oldest evicted), and that document serialised for its
 * write. Both forms, and the same document with no ring (what the rest of it costs), in one
 * process, alternated over ROUNDS (5) rounds of FILLS (20,000) fills; the lowest time per form
 * is kept (load only adds to it). Also: bytes per stored document.
 */
import { serialize } from 'node:v8';
import { decodeDocument, encodeRecord } from '../../adapters/lmdb/lmdb-record.codec.js';
import type { PositionRecord } from '../../agents/portfolio/positions.service.js';
import { type IdRing, ringHas, ringPush } from '../../kernel/vocabulary/id-ring.js';
import { randomId } from '../../kernel/vocabulary/ids.js';

const RING = 256;
const FILLS = Number(process.env.BENCH_FILLS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

/** A stored position with its ring in form `R` (`PositionRecord`'s fields otherwise). */
type Position<R> = Omit<PositionRecord, 'appliedRing' | 'applied'> & { ring: R };

const ids = Array.from({ length: RING }, () => randomId('ord'));
const position = <R>(ring: R): Position<R> => ({
  subject: 'agent:agt_0123456789abcdefghijklmn',
  chain: 'solana',
  token: 'So11111111111111111111111111111111111111112',
  symbol: 'SOL',
  decimals: 9,
  amount: '12.345678901',
  amountBase: '12345678901',
  costBasisUsd: 1234.56,
  realizedPnlUsd: 12.5,
  ring,
  updatedAt: Date.now(),
});

/** The stored record of `data`, as the LMDB store writes it. */
const stored = (data: unknown) =>
  encodeRecord({ id: 'p', version: 7, indexes: { subject: 'agent:x' }, updatedAt: 1, data: serialize(data) });

const forms = {
  array: {
    record: stored(position(ids)),
    fill(record: Buffer, orderId: string): Buffer {
      const current = decodeDocument(record).data as Position<string[]>;
      if (current.ring.includes(orderId)) throw new Error('booked twice');
      return serialize({ ...current, ring: [...current.ring, orderId].slice(-RING), updatedAt: 2 });
    },
  },
  none: {
    record: stored(position<IdRing>('')),
    fill(record: Buffer, _orderId: string): Buffer {
      const current = decodeDocument(record).data as Position<IdRing>;
      return serialize({ ...current, updatedAt: 2 });
    },
  },
  string: {
    record: stored(position<IdRing>(ids.join('\n'))),
    fill(record: Buffer, orderId: string): Buffer {
      const current = decodeDocument(record).data as Position<IdRing>;
      if (ringHas(current.ring, orderId)) throw new Error('booked twice');
      return serialize({ ...current, ring: ringPush(current.ring, orderId, RING).ring, updatedAt: 2 });
    },
  },
};
type Form = keyof typeof forms;

const fresh = Array.from({ length: FILLS }, () => randomId('ord'));

function run(form: Form): number {
  const { record, fill } = forms[form];
  globalThis.gc?.();
  const started = process.hrtime.bigint();
  let bytes = 0;
  for (const orderId of fresh) bytes += fill(record, orderId).length;
  const ns = Number(process.hrtime.bigint() - started);
  if (bytes === 0) throw new Error('nothing written');
  return ns / 1000 / FILLS;
}

const FORMS = ['array', 'string', 'none'] as const;
const best: Record<Form, number> = { array: Number.POSITIVE_INFINITY, string: Number.POSITIVE_INFINITY, none: Number.POSITIVE_INFINITY };
for (const form of FORMS) run(form); // warm-up (JIT)
for (let round = 0; round < ROUNDS; round++) {
  for (const form of FORMS) best[form] = Math.min(best[form], run(form));
}

console.log(
  `## A full ring of ${RING} order ids, per document of a fill (decode, check, push, serialise), lowest of ${ROUNDS} rounds of ${FILLS}`,
);
console.log('| form | µs per document | stored bytes |');
console.log('|---|---|---|');
for (const form of FORMS)
  console.log(`| ${form === 'none' ? 'no ring (the floor)' : form} | ${best[form].toFixed(1)} | ${forms[form].record.length} |`);
console.log(
  `string / array: ${(best.string / best.array).toFixed(2)}x CPU, ${(forms.string.record.length / forms.array.record.length).toFixed(2)}x bytes`,
);
console.log(`a fill writes three such documents: ${(3 * (best.array - best.string)).toFixed(0)} µs saved per fill`);
