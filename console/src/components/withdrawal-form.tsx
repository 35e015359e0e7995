/** The withdrawal settings' form: each save asks the authenticator code first. */
import { useState } from 'preact/hooks';
import type { AgentWithdrawSettingsGetOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import type { StepUpAction } from './step-up-action.js';
import { toast } from '../toast.js';

export function WithdrawalForm(props: {
  agentId: string;
  current: AgentWithdrawSettingsGetOutput;
  ask(action: StepUpAction): void;
  onSaved(): void;
}) {
  const [enabled, setEnabled] = useState(props.current.enabled);
  const [allowlist, setAllowlist] = useState(props.current.allowlist.join('\n'));
  const [cap, setCap] = useState(props.current.dailyCapUsd === undefined ? '' : String(props.current.dailyCapUsd));
  const [requireStepUp, setRequireStepUp] = useState(props.current.requireStepUp);
  const save = (event: Event) => {
    event.preventDefault();
    const recipients = allowlist
      .split(/[\s,]+/)
      .map((line) => line.trim())
      .filter(Boolean);
    props.ask({
      explanation: enabled ? 'The agent will be able to withdraw with these limits.' : 'The agent will not be able to withdraw.',
      submitLabel: 'Verify and save',
      run: async (stepUpToken) => {
        await client.agents.setWithdrawSettings(
          props.agentId,
          { enabled, allowlist: recipients, requireStepUp, ...(cap.trim() ? { dailyCapUsd: Number(cap) } : {}) },
          { stepUpToken },
        );
        toast('Withdrawal settings saved');
        props.onSaved();
      },
    });
  };
  return (
    <form onSubmit={save}>
      <label class="check">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.currentTarget.checked)} />
        The agent may withdraw
      </label>
      <label>
        Allowed recipients (one per line; none: any)
        <textarea rows={3} value={allowlist} onInput={(event) => setAllowlist(event.currentTarget.value)} />
      </label>
      <div class="row">
        <label>
          Daily cap in USD (empty: none)
          <input value={cap} inputMode="decimal" onInput={(event) => setCap(event.currentTarget.value)} />
        </label>
        <label class="check">
          <input type="checkbox" checked={requireStepUp} onChange={(event) => setRequireStepUp(event.currentTarget.checked)} />
          Each withdrawal needs a manage key and a step-up code
        </label>
      </div>
      <div class="actions">
        <button type="submit">Save withdrawal settings</button>
      </div>
    </form>
  );
}
