/**
 * The MCP clients an agent's operator let in through OAuth sign-in, beside the agent's keys: each
 * grant with its client, the host it returns to, its scope and its last use; revoking asks first.
 */
import { useState } from 'preact/hooks';
import { type OAuthGrant, useOAuthGrants } from '../queries/oauth.queries.js';
import { GrantTable } from './grant-table.js';
import { RevokeGrantModal } from './revoke-grant-modal.js';
import { Empty, ErrorText, Loading } from './status.js';

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
      {grants.data && grants.data.length > 0 ? <GrantTable grants={grants.data} onRevoke={setRevoking} /> : null}
      {revoking ? (
        <RevokeGrantModal
          agentId={agentId}
          target={revoking}
          onDone={async (revoked) => {
            setRevoking(undefined);
            if (revoked) await grants.reload();
          }}
        />
      ) : null}
    </section>
  );
}
