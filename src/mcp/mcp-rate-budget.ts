import type { KeyScope } from '../../kernel/vocabulary/scopes.js';
import { budgetKeyOf } from '../surface-common/rate-limit-answers.js';
import { RATE_POLICIES, type RateLimitDecision, type RateLimiterPort, type RateWindow } from '../../kernel/ports/rate-limiter.port.js';
import type { McpAccess } from './mcp-access.js';

/** The windows of a credential's scope (the limits); the MCP bench raises them. */
export type RateWindowsOf = (scope: KeyScope) => readonly RateWindow[];

export const defaultRateWindows: RateWindowsOf = (scope) => RATE_POLICIES.apiKey[scope];

/**
 * One hit on the budget of the credential behind an MCP request or event stream. API keys
 * share theirs with the REST routes (`apikey:<id>`), so no surface is a way around it. An
 * operator's session (the console's event stream) keeps its REST limit too: one counter
 * checked against two limits would refuse a stream to an operator well within their budget.
 */
export function hitBudget(limiter: RateLimiterPort, windowsOf: RateWindowsOf, access: McpAccess): Promise<RateLimitDecision> {
  const windows = access.principal.type === 'session' ? RATE_POLICIES.session : windowsOf(access.scope);
  return limiter.hit(budgetKeyOf(access.principal), windows);
}
