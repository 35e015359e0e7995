/** The keys of an agent or a bot: name, scope, masked secret, status, creation (relative), expiry, and Revoke for an active one. */
import type { Key } from '../queries/keys.queries.js';
import { ago, when } from '../format.js';
import { ActorLink } from './actor-link.js';
import { ScrollRegion } from './scroll-region.js';

export function KeyTable(props: { keys: Key[]; ownerKind: 'agent' | 'bot'; onRevoke(key: Key): void }) {
  return (
    <ScrollRegion class="table-wrap" label="API keys">
      <table class="stacked">
        <caption class="sr-only">API keys of this {props.ownerKind}</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Scope</th>
            <th scope="col">Key</th>
            <th scope="col">Status</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.keys.map((key) => (
            <tr key={key.keyId}>
              <td class="wrap" data-label="Name">
                {key.name}
              </td>
              <td data-label="Scope">{key.scope}</td>
              <td class="mono wrap" data-label="Key">
                {key.maskedSecret}
              </td>
              <td data-label="Status">
                <span class={`badge ${key.status}`}>{key.status}</span>
              </td>
              <td data-label="Created">
                <time dateTime={key.createdAt} title={when(key.createdAt)}>
                  {ago(key.createdAt)}
                </time>
              </td>
              <td data-label="Expires">{new Date(key.expiresAt).toLocaleDateString()}</td>
              <td class="cell-actions">
                <ActorLink type="api-key" id={key.keyId} what={`key ${key.name}`} />
                {key.status === 'active' ? (
                  <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => props.onRevoke(key)}>
                    Revoke
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}
