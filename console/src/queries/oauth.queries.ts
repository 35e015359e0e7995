/**
 * OAuth sign-in of MCP clients, as the console sees it: the access request an MCP client made
 * (shown on the consent page, approved or denied there), and the grants an agent holds beside its
 * keys (listed and revoked on its keys page). All through the SDK's `oauth` calls, with the
 * operator's session (and CSRF on a POST or DELETE).
 */
import { type AgentOauthGrantsListOutput, isSdkError, type OauthAuthorizationGetOutput } from 'agent-runtime-sdk';
import { client, errorText } from '../api.js';
import { useLoad } from '../hooks/use-load.js';

/** An MCP client's pending request for access, as the authorize route recorded it. */
export type OAuthAuthorization = OauthAuthorizationGetOutput;

/** A client's standing access to an agent, beside the agent's keys. */
export type OAuthGrant = AgentOauthGrantsListOutput['grants'][number];

/** What a grant lets the client do: the scopes of an agent key. */
export type GrantScope = OAuthGrant['scope'];

/** The consent page's read: the request, or the service's words when it is gone (expired, decided or never made). */
type AuthorizationRead = { authorization: OAuthAuthorization; gone?: undefined } | { authorization?: undefined; gone: string };

/** The request by its id; a 404 or 410 is an answer (the request is gone), not a failure to retry. */
async function readAuthorization(authorizationId: string): Promise<AuthorizationRead> {
  // An address that lost its query names no request: nothing to ask the service.
  if (authorizationId === '') return { gone: 'This address does not name an access request.' };
  try {
    return { authorization: await client.oauth.authorization(authorizationId) };
  } catch (error) {
    if (isSdkError(error) && (error.status === 404 || error.status === 410)) return { gone: errorText(error) };
    throw error;
  }
}

export const useAuthorization = (authorizationId: string) => useLoad(() => readAuthorization(authorizationId), [authorizationId]);

/** Approves the request for `agentId` with `scope`; `code` is the authenticator code a `manage` grant needs. Answers where the browser goes next. */
export const approveAuthorization = (input: { authorizationId: string; agentId: string; scope: GrantScope; code?: string }) =>
  client.oauth.consent(input);

/** Denies the request: the client hears `access_denied`. Answers where the browser goes next. */
export const denyAuthorization = (authorizationId: string) => client.oauth.consent({ authorizationId, decision: 'deny' });

/** The agent's grants; read again when `version` changes. */
export const useOAuthGrants = (agentId: string, version = 0) =>
  useLoad(async () => (await client.oauth.grants(agentId)).grants, [agentId, version]);

/** Ends a grant: the client's tokens stop working at once. */
export const revokeOAuthGrant = (agentId: string, grantId: string) => client.oauth.revokeGrant(agentId, grantId);
