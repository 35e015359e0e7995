interface BuildTarget {
  /** Where the build writes. */
  dir: string;
  /** The file whose modification time is the build's. */
  output: string;
  /** What the build reads: newer than `output`, they make it stale. */
  sources: readonly string[];
}

export const SERVER_BUILD: BuildTarget;
export const CONSOLE_BUILD: BuildTarget;
export function serverStale(): boolean;
export function consoleStale(): boolean;
