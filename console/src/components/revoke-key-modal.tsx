/** Asks before a key is revoked: whatever uses it loses access at once. */
import type { Key, KeyOwner } from '../queries/keys.queries.js';
import { useAction } from '../hooks/use-action.js';
import { Modal } from './modal.js';
import { ErrorText } from './status.js';
import { toast } from '../toast.js';

export function RevokeKeyModal(props: { owner: KeyOwner; target: Key; onDone(revoked: boolean): Promise<void> }) {
  const revoke = useAction(async () => {
    await props.owner.revoke(props.target.keyId);
    toast(`Key ${props.target.name} revoked`);
    await props.onDone(true);
  });
  return (
    <Modal title={`Revoke ${props.target.name}?`} labelId="revoke-title" onClose={() => void props.onDone(false)}>
      <p>Anything using this key loses access at once. This cannot be undone: to keep access, create a new key first.</p>
      <ErrorText text={revoke.error} />
      <div class="actions">
        <button type="button" class="danger" disabled={revoke.busy} onClick={() => void revoke.run()}>
          {revoke.busy ? 'Revoking…' : 'Revoke key'}
        </button>
        <button type="button" class="secondary" data-autofocus onClick={() => void props.onDone(false)}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
