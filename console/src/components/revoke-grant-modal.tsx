/** Asks before an OAuth grant is revoked: the client's tokens stop working at once, and it must ask again. */
import { useAction } from '../hooks/use-action.js';
import { type OAuthGrant, revokeOAuthGrant } from '../queries/oauth.queries.js';
import { toast } from '../toast.js';
import { Modal } from './modal.js';
import { ErrorText } from './status.js';

export function RevokeGrantModal(props: { agentId: string; target: OAuthGrant; onDone(revoked: boolean): Promise<void> }) {
  const revoke = useAction(async () => {
    await revokeOAuthGrant(props.agentId, props.target.grantId);
    toast(`Access of ${props.target.clientName} revoked`);
    await props.onDone(true);
  });
  return (
    <Modal title={`Revoke ${props.target.clientName}?`} labelId="revoke-grant-title" onClose={() => void props.onDone(false)}>
      <p>
        The app returning to <span class="mono">{props.target.redirectHost}</span> loses access to this agent at once. To use it again, you
        approve a new sign-in from the app.
      </p>
      <ErrorText text={revoke.error} />
      <div class="actions">
        <button type="button" class="danger" disabled={revoke.busy} onClick={() => void revoke.run()}>
          {revoke.busy ? 'Revoking…' : 'Revoke access'}
        </button>
        <button type="button" class="secondary" data-autofocus onClick={() => void props.onDone(false)}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
