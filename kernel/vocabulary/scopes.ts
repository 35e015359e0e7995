/**
 * The scopes of an API key, cumulative: read < trade < manage. A key holds one; an operation
 * names the least it needs. Keys, the catalog, the agent's scope cap and the SDK's generated
 * types all speak this list.
 */
export const SCOPES = ['read', 'trade', 'manage'] as const;
export type KeyScope = (typeof SCOPES)[number];

/** True when `held` covers `required` (read < trade < manage, cumulative). */
export function scopeCovers(held: KeyScope, required: KeyScope): boolean {
  return SCOPES.indexOf(held) >= SCOPES.indexOf(required);
}
