/** The step-up dialog shared by a manage key and the control-plane settings. */
import { useState } from 'preact/hooks';
import { client, errorText } from '../api.js';
import { Modal } from './modal.js';
import { ErrorText } from './status.js';
import { CodeInput } from './code-input.js';

/**
 * Step-up: the 6-digit code from the authenticator app, exchanged for a step-up token (single
 * use) that the action then carries. A wrong code reads `Verification failed`, the field cleared.
 */
export function StepUpModal(props: {
  agentId: string;
  explanation: string;
  submitLabel: string;
  onCancel(): void;
  onVerified(stepUpToken: string): Promise<void>;
}) {
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const verify = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { stepUpToken } = await client.agents.stepUp(props.agentId, { code });
      await props.onVerified(stepUpToken);
    } catch (caught) {
      setError(errorText(caught));
      setCode('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal title="Confirm with your authenticator" labelId="step-up-title" onClose={props.onCancel}>
      <form onSubmit={verify}>
        <p>{props.explanation}</p>
        <CodeInput label="Authenticator code" value={code} onInput={setCode} />
        <ErrorText text={error} />
        <div class="actions">
          <button type="submit" disabled={busy || code.length !== 6}>
            {busy ? 'Verifying…' : props.submitLabel}
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}
