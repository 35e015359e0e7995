/**
 * The chaos run, short: three service processes on one store and one Redis behind a
 * round-robin balancer, agents swapping and withdrawing over MCP and REST, DCA strategies
 * ticking, SSE clients resuming; for 30 s processes are SIGKILLed and restarted, Redis is
 * paused once and the store stalled once. Every invariant must hold (`npm run chaos` is the
 * five-minute version).
 */
import { describe, expect, it } from 'vitest';
import { runChaos, SHORT_SCALE } from './chaos-run.js';

describe('chaos run (30 s)', () => {
  it('keeps every invariant while processes die, Redis pauses and the store stalls', async () => {
    const report = await runChaos(SHORT_SCALE);
    expect(report.results.filter((r) => r.violations.length > 0)).toEqual([]);
    // Every invariant had something to check.
    for (const result of report.results) expect(result.checked, result.name).toBeGreaterThan(0);
    // About a minute on a quiet 2-core machine; starting three service processes under a full
    // parallel suite has taken minutes here, so the bound is for a hang, not for speed.
  }, 600_000);
});
