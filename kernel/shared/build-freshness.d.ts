/** True when `output` is missing or older than any of `sources` (files or folders; a missing one is not read). */
export function buildStale(output: string, sources: readonly string[]): boolean;
