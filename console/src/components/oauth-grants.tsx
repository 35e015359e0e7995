/**
 * The MCP clients an agent's operator let in through OAuth sign-in, beside the agent's keys: each
 * grant with its client, the host it returns to, its scope and its last use; revoking asks first.
 */
import { useState } from 'preact/hooks';
import { type OAuthGrant, revokeOAuthGrant, useOAuthGrants } from '../queries/oauth.queries.js';
import { type CredentialColumn, CredentialTable, RelativeTime } from './credential-table.js';
import { RevokeModal } from './revoke-modal.js';
import { Empty, ErrorText, Loading } from './status.js';

/** Client, the host it returns to, scope, creation and last use (relative) of each grant. */
const GRANT_COLUMNS: CredentialColumn<OAuthGrant>[] = [
  { header: 'Client', class: 'wrap', cell: (grant) => grant.clientName },
  { header: 'Returns to', class: 'mono wrap', cell: (grant) => grant.redirectHost },
  { header: 'Scope', cell: (grant) => grant.scope },
  { header: 'Created', cell: (grant) => <RelativeTime at={grant.createdAt} /> },
  { header: 'Last used', cell: (grant) => <RelativeTime at={grant.lastUsedAt} fallback="never" /> },
];

/** `version`: a new value reads the grants again. */
export function OAuthGrants({ agentId, version = 0 }: { agentId: string; version?: number }) {
  const grants = useOAuthGrants(agentId, version);
  const [revoking, setRevoking] = useState<OAuthGrant | undefined>(undefined);
  return (
    <section aria-labelledby="grants-title">
      <h2 id="grants-title">Apps signed in with OAuth</h2>
      {grants.loading && !grants.data ? <Loading what="OAuth grants" /> : null}
      <ErrorText text={grants.error} />
      {grants.data && grants.data.length === 0 ? (
        <Empty>No app signed in yet. An MCP client that supports OAuth sign-in asks you here before it gets access.</Empty>
      ) : null}
      {grants.data && grants.data.length > 0 ? (
        <CredentialTable
          rows={grants.data}
          rowKey={(grant) => grant.grantId}
          label="OAuth grants"
          caption="Apps signed in to this agent with OAuth"
          columns={GRANT_COLUMNS}
          nameOf={(grant) => grant.clientName}
          onRevoke={(grant) => setRevoking(grant)}
        />
      ) : null}
      {revoking ? (
        <RevokeModal
          name={revoking.clientName}
          labelId="revoke-grant-title"
          confirmLabel="Revoke access"
          doneMessage={`Access of ${revoking.clientName} revoked`}
          revoke={() => revokeOAuthGrant(agentId, revoking.grantId)}
          onDone={async (revoked) => {
            setRevoking(undefined);
            if (revoked) await grants.reload();
          }}
        >
          The app returning to <span class="mono">{revoking.redirectHost}</span> loses access to this agent at once. To use it again, you
          approve a new sign-in from the app.
        </RevokeModal>
      ) : null}
    </section>
  );
}
