/** An agent's OAuth grants: client, the host it returns to, scope, creation and last use (relative), and Revoke. */
import { ago, when } from '../format.js';
import type { OAuthGrant } from '../queries/oauth.queries.js';
import { ScrollRegion } from './scroll-region.js';

export function GrantTable(props: { grants: OAuthGrant[]; onRevoke(grant: OAuthGrant): void }) {
  return (
    <ScrollRegion class="table-wrap" label="OAuth grants">
      <table class="stacked">
        <caption class="sr-only">Apps signed in to this agent with OAuth</caption>
        <thead>
          <tr>
            <th scope="col">Client</th>
            <th scope="col">Returns to</th>
            <th scope="col">Scope</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.grants.map((grant) => (
            <tr key={grant.grantId}>
              <td class="wrap" data-label="Client">
                {grant.clientName}
              </td>
              <td class="mono wrap" data-label="Returns to">
                {grant.redirectHost}
              </td>
              <td data-label="Scope">{grant.scope}</td>
              <td data-label="Created">
                <time dateTime={grant.createdAt} title={when(grant.createdAt)}>
                  {ago(grant.createdAt)}
                </time>
              </td>
              <td data-label="Last used">
                {grant.lastUsedAt ? (
                  <time dateTime={grant.lastUsedAt} title={when(grant.lastUsedAt)}>
                    {ago(grant.lastUsedAt)}
                  </time>
                ) : (
                  'never'
                )}
              </td>
              <td class="cell-actions">
                <button type="button" class="danger" aria-label={`Revoke ${grant.clientName}`} onClick={() => props.onRevoke(grant)}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
