/** Options every SDK call takes. */
export interface CallOptions {
  /** Abort the call (and its retries): it rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Per attempt, in ms; default the client's. */
  timeoutMs?: number;
  /** Attempts in all for this call; 1 switches retries off. */
  maxAttempts?: number;
  /** For guarded calls: the key to use instead of a fresh UUID v4 (to retry a call across restarts of your own process). */
  idempotencyKey?: string;
}

/** Options of operator trading calls that act on one agent: the default agent unless `agentId` is given. */
export interface AccountOptions extends CallOptions {
  agentId?: string;
}

/** A query string of the defined values, `?a=1&b=x`, or `''`. */
export function queryString(values: Record<string, unknown>): string {
  const pairs = Object.entries(values).filter(([, value]) => value !== undefined && value !== null);
  if (pairs.length === 0) return '';
  return `?${pairs.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`).join('&')}`;
}

/** A path segment, encoded. */
export const seg = (value: string): string => encodeURIComponent(value);
