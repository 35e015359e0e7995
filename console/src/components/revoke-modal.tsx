/**
 * Asks before a credential (a key, an OAuth grant) is revoked: whatever uses it loses access
 * at once. The caller says what is lost and how to revoke; the modal confirms, shows the
 * service's refusal in its words, and tells the page whether anything was revoked.
 */
import type { ComponentChildren } from 'preact';
import { useAction } from '../hooks/use-action.js';
import { toast } from '../toast.js';
import { Modal } from './modal.js';
import { ErrorText } from './status.js';

export interface RevokeModalProps {
  /** What is revoked, as the title asks (`Revoke <name>?`). */
  name: string;
  labelId: string;
  /** What revoking means for whoever uses the credential. */
  children: ComponentChildren;
  /** The confirming button's text (`Revoke key`). */
  confirmLabel: string;
  /** The notice once done. */
  doneMessage: string;
  revoke(): Promise<unknown>;
  onDone(revoked: boolean): Promise<void>;
}

export function RevokeModal(props: RevokeModalProps) {
  const revoke = useAction(async () => {
    await props.revoke();
    toast(props.doneMessage);
    await props.onDone(true);
  });
  return (
    <Modal title={`Revoke ${props.name}?`} labelId={props.labelId} onClose={() => void props.onDone(false)}>
      <p>{props.children}</p>
      <ErrorText text={revoke.error} />
      <div class="actions">
        <button type="button" class="danger" disabled={revoke.busy} onClick={() => void revoke.run()}>
          {revoke.busy ? 'Revoking…' : props.confirmLabel}
        </button>
        <button type="button" class="secondary" data-autofocus onClick={() => void props.onDone(false)}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
