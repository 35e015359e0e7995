/** The step-up dialog shared by a manage key and the control-plane settings. */
import { useState } from 'preact/hooks';
import { useAction } from '../hooks/use-action.js';
import { Modal } from './modal.js';
import { ErrorText } from './status.js';
import { CodeInput } from './code-input.js';

/**
 * Step-up: the 6-digit code from the authenticator app, exchanged for a step-up token (single
 * use) that the action then carries. A wrong code reads `Verification failed`, the field cleared.
 */
export function StepUpModal(props: {
  /** Exchanges the code for the token: the agent's step-up, or a legacy bot's. */
  stepUp(code: string): Promise<{ stepUpToken: string }>;
  explanation: string;
  submitLabel: string;
  onCancel(): void;
  onVerified(stepUpToken: string): Promise<void>;
}) {
  const [code, setCode] = useState('');
  const verify = useAction(
    async () => {
      const { stepUpToken } = await props.stepUp(code);
      await props.onVerified(stepUpToken);
    },
    { failed: () => setCode('') },
  );
  return (
    <Modal title="Confirm with your authenticator" labelId="step-up-title" onClose={props.onCancel}>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void verify.run();
        }}
      >
        <p>{props.explanation}</p>
        <CodeInput label="Authenticator code" value={code} onInput={setCode} />
        <ErrorText text={verify.error} />
        <div class="actions">
          <button type="submit" disabled={verify.busy || code.length !== 6}>
            {verify.busy ? 'Verifying…' : props.submitLabel}
          </button>
          <button type="button" class="secondary" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}
