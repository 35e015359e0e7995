/** The agent's withdrawal settings: read, and changed only after the authenticator code (the control plane's step-up). */
import { useWithdrawSettings } from '../queries/agents.queries.js';
import { ErrorText, Loading } from './status.js';
import type { StepUpAction } from './step-up-action.js';
import { WithdrawalForm } from './withdrawal-form.js';

export function WithdrawalSettings({ agentId, ask }: { agentId: string; ask(action: StepUpAction): void }) {
  const settings = useWithdrawSettings(agentId);
  return (
    <>
      <h3>Withdrawals</h3>
      {settings.loading && !settings.data ? <Loading what="withdrawal settings" /> : null}
      <ErrorText text={settings.error} />
      {settings.data ? (
        <WithdrawalForm
          key={settings.data.updatedAt ?? 'never'}
          agentId={agentId}
          current={settings.data}
          ask={ask}
          onSaved={() => void settings.reload()}
        />
      ) : null}
    </>
  );
}
