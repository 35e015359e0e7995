/**
 * Lifetimes of identity access tokens per scope (authentication rule 7, section 8), in seconds.
 * `manage` is never issued at onboarding (rule 8) but has its lifetime all the same.
 */
export const TOKEN_LIFETIME_S = { read: 3600, trade: 300, manage: 60 } as const;

/** The longest of them: how long a retired signing key must stay published. */
export const MAX_TOKEN_LIFETIME_S = Math.max(...Object.values(TOKEN_LIFETIME_S));
