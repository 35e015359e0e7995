/**
 * OAuth sign-in of MCP clients, as the console sees it: the access request an MCP client made
 * (shown on the consent page, approved or denied there), and the grants an agent holds beside its
 * keys (listed and revoked on its keys page). Every call goes with the operator's session (and
 * CSRF on a POST or DELETE), as the SDK's other operator calls do.
 */
import { isSdkError, type KEY_SCOPES } from 'agent-runtime-sdk';
import { client, errorText } from '../api.js';
import { useLoad } from '../hooks/use-load.js';

/** What a grant lets the client do: the scopes of an agent key. */
export type GrantScope = (typeof KEY_SCOPES)[number];

/** An MCP client's pending request for access, as the authorize route recorded it. */
export interface OAuthAuthorization {
  authorizationId: string;
  clientId: string;
  /** What the client calls itself: its own claim, shown as such. */
  clientName: string;
  clientUri?: string;
  redirectUri: string;
  /** Where the browser goes after the decision: the one thing the operator can check. */
  redirectHost: string;
  /** The scope the client asked for (space-separated, as OAuth writes scopes). */
  scope: string;
  resource?: string;
  /** The agent whose MCP address the client asked for, when it named one. */
  agent?: { agentId: string; publicId: string; name: string };
  expiresAt: string;
}

/** A client's standing access to an agent, beside the agent's keys. */
export interface OAuthGrant {
  grantId: string;
  clientId: string;
  clientName: string;
  redirectHost: string;
  scope: GrantScope;
  createdAt: string;
  /** Absent (or null) until the client first uses it. */
  lastUsedAt?: string | null;
  expiresAt: string;
}

/** The consent page's read: the request, or the service's words when it is gone (expired, used or never made). */
export type AuthorizationRead = { authorization: OAuthAuthorization; gone?: undefined } | { authorization?: undefined; gone: string };

const seg = encodeURIComponent;

/** The request by its id; a 404 or 410 is an answer (the request is gone), not a failure to retry. */
async function readAuthorization(authorizationId: string): Promise<AuthorizationRead> {
  // An address that lost its query names no request: nothing to ask the service.
  if (authorizationId === '') return { gone: 'This address does not name an access request.' };
  try {
    const answer = await client.session.request({ method: 'GET', path: `/api/nest/oauth/authorizations/${seg(authorizationId)}` });
    return { authorization: answer.body as OAuthAuthorization };
  } catch (error) {
    if (isSdkError(error) && (error.status === 404 || error.status === 410)) return { gone: errorText(error) };
    throw error;
  }
}

export const useAuthorization = (authorizationId: string) => useLoad(() => readAuthorization(authorizationId), [authorizationId]);

/** Where the browser goes next: the client's redirect URI with the code (or the refusal) in it. */
interface Decision {
  redirectTo: string;
}

/** Approves the request for `agentId` with `scope`; `code` is the authenticator code a `manage` grant needs. */
export async function approveAuthorization(input: {
  authorizationId: string;
  agentId: string;
  scope: GrantScope;
  code?: string;
}): Promise<Decision> {
  const answer = await client.session.request({ method: 'POST', path: '/api/nest/oauth/consent', body: input });
  return answer.body as Decision;
}

/** Denies the request: the client hears `access_denied`. */
export async function denyAuthorization(authorizationId: string): Promise<Decision> {
  const answer = await client.session.request({
    method: 'POST',
    path: '/api/nest/oauth/consent',
    body: { authorizationId, decision: 'deny' },
  });
  return answer.body as Decision;
}

/** The agent's grants; read again when `version` changes. */
export const useOAuthGrants = (agentId: string, version = 0) =>
  useLoad(async () => {
    const answer = await client.session.request({ method: 'GET', path: `/api/nest/agents/${seg(agentId)}/oauth-grants` });
    return (answer.body as { grants: OAuthGrant[] }).grants;
  }, [agentId, version]);

/** Ends a grant: the client's tokens stop working at once. */
export async function revokeOAuthGrant(agentId: string, grantId: string): Promise<void> {
  await client.session.request({ method: 'DELETE', path: `/api/nest/agents/${seg(agentId)}/oauth-grants/${seg(grantId)}` });
}
