/**
 * `npm run chaos`: the five-minute chaos run (test/chaos/chaos-run.ts says what it does). Exits
 * non-zero when any invariant was violated. `-- --short` runs the 30-second size of `npm test`;
 * `-- --seconds N` changes only how long the chaos lasts.
 */
import { parseArgs } from 'node:util';
import { FULL_SCALE, runChaos, SHORT_SCALE } from '../test/chaos/chaos-run.js';

const { values } = parseArgs({ options: { short: { type: 'boolean' }, seconds: { type: 'string' } } });
const scale = { ...(values.short ? SHORT_SCALE : FULL_SCALE) };
if (values.seconds !== undefined) {
  const seconds = Number(values.seconds);
  if (!Number.isInteger(seconds) || seconds < 10) throw new Error('--seconds must be a whole number of at least 10');
  scale.durationMs = seconds * 1000;
}
const report = await runChaos(scale);
const failed = report.results.filter((r) => r.violations.length > 0);
console.log(failed.length === 0 ? '[chaos] every invariant held' : `[chaos] ${failed.length} invariants violated`);
process.exit(failed.length === 0 ? 0 : 1);
