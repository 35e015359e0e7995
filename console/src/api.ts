/**
 * The console's one client of the service: the SDK's OperatorClient on the page's own origin.
 * The session lives in memory only (the SDK's): a reload signs the operator out, so no token
 * or key secret is ever written to storage the page's scripts (or an extension) could read later.
 */
import { isSdkError, OperatorClient } from '../../sdk/src/index.js';

export const client = new OperatorClient({ baseUrl: window.location.origin });

/** The service's message word for word (interface 7), or what went wrong on the way there. */
export function errorText(error: unknown): string {
  if (isSdkError(error)) {
    if (error.code === 'network_error') return `The service did not answer (${error.message}). Check your connection and try again.`;
    if (error.code === 'rate_limit_error' && error.retryAfter !== undefined) return `${error.message} Try again in ${error.retryAfter} s.`;
    return error.message;
  }
  return error instanceof Error ? error.message : String(error);
}
