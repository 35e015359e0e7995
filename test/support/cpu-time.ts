/**
 * Milliseconds of CPU this process spent in `run` (user + system). A test that bounds how long
 * synchronous work takes (no catastrophic backtracking, say) bounds this, not the wall clock:
 * the suite runs one file per process (vitest's forks pool), so this is the work's own time,
 * and a machine busy with other jobs does not stretch it as it stretches the wall clock.
 */
export function cpuMillisOf(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}
