/**
 * Store and actor calls per flow (one REST EVM swap, MCP swap, DCA tick, withdrawal, widget
 * chat, REST command), counted on the started service: `npm run bench:store-calls`. Counts,
 * not times: they are the same on every run and machine, and `test/e2e/store-calls.e2e.test.ts`
 * holds each flow under its ceiling. BENCH_DETAIL=1 also lists calls by collection / actor type.
 * Each flow meets cold caches (as after a quiet spell of 30 s or more); BENCH_WARM=1 counts it
 * as a client's next call soon after its last (the kill switch and credentials cached).
 *
 * `before` is each flow's count before the request's account context was read once at its
 * boundary (the same bench on the commit before that work, cold caches as here): the table
 * prints it beside today's count and their ratio.
 */
import { FLOWS, startStoreCallBench, type FlowCount } from '../support/store-call-flows.js';

const KINDS = [
  'store get',
  'store find',
  'store list',
  'store put',
  'store commit',
  'store delete',
  'actor get',
  'actor find',
  'actor count',
  'actor create',
  'actor send',
];
const DETAIL = process.env.BENCH_DETAIL === '1';
const BEFORE: Record<string, number> = {
  'REST EVM swap': 29,
  'MCP swap': 30,
  'DCA tick': 31,
  withdrawal: 40,
  'widget chat': 14,
  'REST command': 28,
};

const bench = await startStoreCallBench();
const counts = new Map<string, FlowCount>();
try {
  for (const flow of FLOWS) {
    counts.set(flow, await bench.run(flow));
  }
} finally {
  await bench.stop();
}

const used = KINDS.filter((kind) => [...counts.values()].some((count) => count.byKind[kind]));
const header = ['flow', 'before', 'total', 'ratio', ...used];
const rows = [...counts].map(([flow, count]) => [
  flow,
  String(BEFORE[flow] ?? '?'),
  String(count.total),
  BEFORE[flow] ? (count.total / BEFORE[flow]).toFixed(2) : '?',
  ...used.map((kind) => String(count.byKind[kind] ?? 0)),
]);
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
const line = (cells: string[]) =>
  `| ${cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join(' | ')} |`;
console.log(line(header));
console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
for (const row of rows) console.log(line(row));
if (DETAIL)
  for (const [flow, count] of counts) {
    console.log(`\n${flow}:`);
    for (const [target, n] of Object.entries(count.byTarget)) console.log(`  ${String(n).padStart(3)}  ${target}`);
  }
