/**
 * The agent's control plane: claim it with the signed-in wallet, cap the scope of
 * its credentials, rotate its keys, and its withdrawal settings. Every change but the claim
 * asks the authenticator code first (step-up); rotated keys' secrets show once each, in the
 * same self-closing window as a new key's.
 */
import { useState } from 'preact/hooks';
import type { AgentControlClaimOutput, AgentWithdrawSettingsGetOutput } from '../../../sdk/src/index.js';
import { client, errorText } from '../api.js';
import { useLoad } from '../use-load.js';
import { evmSigner, solanaSigner } from '../wallets.js';
import { hasSecret, MISSING_SECRET, SecretModal } from './secret-modal.js';
import { ErrorText, Loading } from './status.js';
import { StepUpModal } from './step-up-modal.js';
import { toast } from './toasts.js';

type Scope = 'read' | 'trade' | 'manage';
interface Pending {
  explanation: string;
  submitLabel: string;
  run(stepUpToken: string): Promise<void>;
}

export function ControlPlane({ agentId, onKeysRotated }: { agentId: string; onKeysRotated(): void }) {
  const [pending, setPending] = useState<Pending | undefined>(undefined);
  const [secrets, setSecrets] = useState<Array<{ secret: string; name: string }>>([]);
  const [maxScope, setMaxScope] = useState<Scope>('manage');
  const [grace, setGrace] = useState('0');

  const ask = (action: Pending) => setPending(action);

  return (
    <section class="card" aria-labelledby="control-title">
      <h2 id="control-title">Control plane</h2>
      <p class="muted small">Claim the agent first; the other changes ask your authenticator code (set it up above) and need the claim.</p>
      <Claim agentId={agentId} />

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

      <Withdrawals agentId={agentId} ask={ask} />

      {pending ? (
        <StepUpModal
          agentId={agentId}
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

/** The claim signs a fresh sign-in message naming the agent with the wallet the operator signed in with. */
function Claim({ agentId }: { agentId: string }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [claim, setClaim] = useState<AgentControlClaimOutput | undefined>(undefined);
  const run = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const evm = client.user.walletAddress.startsWith('0x');
      const signer = evm ? await evmSigner() : await solanaSigner();
      if (signer.address.toLowerCase() !== client.user.walletAddress.toLowerCase())
        throw new Error(
          `Your wallet now uses ${signer.address}; switch it back to ${client.user.walletAddress}, the one you signed in with.`,
        );
      setClaim(await client.agents.claim(agentId, signer, evm && 'chainId' in signer ? { chainId: signer.chainId } : {}));
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div>
      <h3>Claim</h3>
      <p class="muted small">Proves with your wallet's signature that you control this agent; again later, it verifies the claim.</p>
      <button type="button" disabled={busy} onClick={() => void run()}>
        {busy ? 'Waiting for your wallet…' : 'Claim with my wallet'}
      </button>
      <div aria-live="polite">
        {claim ? <p data-testid="claim-status">Claimed by you on {new Date(claim.claimedAt).toLocaleString()}.</p> : null}
      </div>
      <ErrorText text={error} />
    </div>
  );
}

function Withdrawals({ agentId, ask }: { agentId: string; ask(action: Pending): void }) {
  const settings = useLoad(() => client.agents.withdrawSettings(agentId), [agentId]);
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

function WithdrawalForm(props: { agentId: string; current: AgentWithdrawSettingsGetOutput; ask(action: Pending): void; onSaved(): void }) {
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
