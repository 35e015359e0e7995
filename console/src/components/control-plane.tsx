/**
 * The agent's control plane (issue 10): claim it with the signed-in wallet, cap the scope of
 * its credentials, rotate its keys, and its withdrawal settings. Every change but the claim
 * asks the authenticator code first (step-up); rotated keys' secrets show once each, in the
 * same self-closing window as a new key's.
 */
import { useState } from 'preact/hooks';
import { client } from '../api.js';
import { AgentClaim } from './agent-claim.js';
import type { StepUpAction } from './step-up-action.js';
import { WithdrawalSettings } from './withdrawal-settings.js';
import { hasSecret, MISSING_SECRET, SecretModal } from './secret-modal.js';
import { StepUpModal } from './step-up-modal.js';
import { toast } from '../toast.js';

type Scope = 'read' | 'trade' | 'manage';

export function ControlPlane({ agentId, onKeysRotated }: { agentId: string; onKeysRotated(): void }) {
  const [pending, setPending] = useState<StepUpAction | undefined>(undefined);
  const [secrets, setSecrets] = useState<Array<{ secret: string; name: string }>>([]);
  const [maxScope, setMaxScope] = useState<Scope>('manage');
  const [grace, setGrace] = useState('0');

  const ask = (action: StepUpAction) => setPending(action);

  return (
    <section class="card" aria-labelledby="control-title">
      <h2 id="control-title">Control plane</h2>
      <p class="muted small">Claim the agent first; the other changes ask your authenticator code (set it up above) and need the claim.</p>
      <AgentClaim agentId={agentId} />

      <h3>Credential scope cap</h3>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          ask({
            explanation: `Every key and identity token of this agent will act with at most "${maxScope}", at once.`,
            submitLabel: 'Verify and apply',
            run: async (stepUpToken) => {
              const answer = await client.agents.setScopes(agentId, { maxScope }, { stepUpToken });
              toast(`Credentials now act with at most ${answer.maxScope}`);
            },
          });
        }}
      >
        <label>
          Highest scope
          <select value={maxScope} onChange={(event) => setMaxScope(event.currentTarget.value as Scope)}>
            <option value="read">read</option>
            <option value="trade">trade</option>
            <option value="manage">manage (no cap)</option>
          </select>
        </label>
        <button type="submit">Apply scope cap</button>
      </form>

      <h3>Rotate keys</h3>
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          ask({
            explanation: 'Every active key gets a new one of the same name and scope; the old ones stop after the grace period.',
            submitLabel: 'Verify and rotate',
            run: async (stepUpToken) => {
              const answer = await client.agents.rotateKeys(agentId, { graceSeconds: Number(grace) }, { stepUpToken });
              toast(`${answer.keys.length} key${answer.keys.length === 1 ? '' : 's'} rotated`);
              // The rotation is done: a key without its secret is said, never thrown (the dialog would ask to rotate again).
              if (!answer.keys.every((key) => hasSecret(key.secret))) toast(MISSING_SECRET, 'error');
              setSecrets(answer.keys.filter((key) => hasSecret(key.secret)).map((key) => ({ secret: key.secret, name: key.name })));
              onKeysRotated();
            },
          });
        }}
      >
        <label>
          Old keys keep working for (seconds)
          <input value={grace} inputMode="numeric" pattern="\d{1,5}" required onInput={(event) => setGrace(event.currentTarget.value)} />
        </label>
        <button type="submit">Rotate keys</button>
      </form>

      <WithdrawalSettings agentId={agentId} ask={ask} />

      {pending ? (
        <StepUpModal
          stepUp={(code) => client.agents.stepUp(agentId, { code })}
          explanation={pending.explanation}
          submitLabel={pending.submitLabel}
          onCancel={() => setPending(undefined)}
          onVerified={async (token) => {
            await pending.run(token);
            setPending(undefined);
          }}
        />
      ) : null}
      {secrets[0] ? (
        <SecretModal
          key={secrets[0].secret}
          secret={secrets[0].secret}
          keyName={secrets[0].name}
          onClose={() => setSecrets(secrets.slice(1))}
        />
      ) : null}
    </section>
  );
}
