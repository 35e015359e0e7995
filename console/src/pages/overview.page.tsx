/**
 * One agent and its API keys, the flow of the key management flow: name and scope; `read` and `trade`
 * keys are created at once and their secret shown in the one-time modal; a `manage` key asks
 * the TOTP code first (step-up); revoking asks for confirmation.
 */
import { useState } from 'preact/hooks';
import type { AgentKeysCreateOutput, AgentKeysListOutput } from '../../../sdk/src/index.js';
import { client, errorText } from '../api.js';
import { Modal } from '../components/modal.js';
import { hasSecret, MISSING_SECRET, SecretModal } from '../components/secret-modal.js';
import { StepUpModal } from '../components/step-up-modal.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { toast } from '../components/toasts.js';
import { TotpEnrolment } from '../components/totp-enrolment.js';
import { ControlPlane } from '../components/control-plane.js';
import { ago, when } from '../format.js';
import { useLoad } from '../use-load.js';
import { ScrollRegion } from '../components/scroll-region.js';

type Scope = AgentKeysCreateOutput['scope'];
type Key = AgentKeysListOutput['items'][number];

export function OverviewPage({ agentId }: { agentId: string }) {
  const keys = useLoad(() => client.keys.list(agentId, { limit: 200 }), [agentId]);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('read');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const [askCode, setAskCode] = useState(false);
  const [revealed, setRevealed] = useState<{ secret: string; name: string } | undefined>(undefined);
  const [revoking, setRevoking] = useState<Key | undefined>(undefined);

  const create = async (stepUpToken?: string) => {
    const created = await client.keys.create(agentId, { name: name.trim(), scope, ...(stepUpToken ? { stepUpToken } : {}) });
    if (!hasSecret(created.secret)) {
      await revokeUnusable(created);
      await keys.reload();
      throw new Error(MISSING_SECRET);
    }
    await keys.reload();
    setName('');
    setRevealed({ secret: created.secret, name: created.name });
  };

  // A key whose secret never arrived can never be used by anyone but whoever intercepted it: it goes at once.
  const revokeUnusable = async (created: { keyId?: unknown; name?: unknown }) => {
    const label = typeof created.name === 'string' ? created.name : name.trim();
    if (typeof created.keyId !== 'string' || created.keyId === '') {
      toast(`Key ${label} may have been created without its secret: revoke it in the list below`, 'error');
      return;
    }
    try {
      await client.keys.revoke(agentId, created.keyId);
      toast(`Key ${label} revoked: its secret never reached this page. Create it again.`);
    } catch (caught) {
      toast(`Key ${label} is active without a secret you can copy: revoke it in the list below (${errorText(caught)})`, 'error');
    }
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(undefined);
    if (scope === 'manage') {
      setAskCode(true);
      return;
    }
    setBusy(true);
    try {
      await create();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <section class="card" aria-labelledby="new-key-title">
        <h2 id="new-key-title">New API key</h2>
        <form class="row" onSubmit={submit}>
          <label class="grow">
            Key name
            <input value={name} required maxLength={100} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <label>
            Scope
            <select value={scope} onChange={(event) => setScope(event.currentTarget.value as Scope)}>
              <option value="read">read: status, portfolio, research</option>
              <option value="trade">trade: read plus trading</option>
              <option value="manage">manage: everything (needs your authenticator code)</option>
            </select>
          </label>
          <button type="submit" disabled={busy || name.trim() === ''}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </form>
        <ErrorText text={error} />
      </section>

      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        {keys.loading && !keys.data ? <Loading what="keys" /> : null}
        <ErrorText text={keys.error} />
        {keys.data && keys.data.items.length === 0 ? <Empty>No keys yet. Create one above for your agent's runtime.</Empty> : null}
        {keys.data && keys.data.items.length > 0 ? (
          <ScrollRegion class="table-wrap" label="API keys">
            <table class="stacked">
              <caption class="sr-only">API keys of this agent</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Key</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.items.map((key) => (
                  <tr key={key.keyId}>
                    <td class="wrap" data-label="Name">
                      {key.name}
                    </td>
                    <td data-label="Scope">{key.scope}</td>
                    <td class="mono wrap" data-label="Key">
                      {key.maskedSecret}
                    </td>
                    <td data-label="Status">
                      <span class={`badge ${key.status}`}>{key.status}</span>
                    </td>
                    <td data-label="Created">
                      <time dateTime={key.createdAt} title={when(key.createdAt)}>
                        {ago(key.createdAt)}
                      </time>
                    </td>
                    <td data-label="Expires">{new Date(key.expiresAt).toLocaleDateString()}</td>
                    <td class="cell-actions">
                      {key.status === 'active' ? (
                        <button type="button" class="danger" aria-label={`Revoke ${key.name}`} onClick={() => setRevoking(key)}>
                          Revoke
                        </button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollRegion>
        ) : null}
      </section>

      <TotpEnrolment />
      <ControlPlane agentId={agentId} onKeysRotated={() => void keys.reload()} />

      {askCode ? (
        <StepUpModal
          agentId={agentId}
          explanation="A manage key can do everything with this agent. Enter the 6-digit code from your authenticator app."
          submitLabel="Verify and create key"
          onCancel={() => setAskCode(false)}
          onVerified={async (token) => {
            // The code was right and its token is spent: whatever the creation answers is the page's to show, not
            // the modal's (asking for a code again would create a second key when the first came back without its secret).
            setAskCode(false);
            try {
              await create(token);
            } catch (caught) {
              setError(errorText(caught));
            }
          }}
        />
      ) : null}
      {revealed ? <SecretModal secret={revealed.secret} keyName={revealed.name} onClose={() => setRevealed(undefined)} /> : null}
      {revoking ? (
        <RevokeModal
          agentId={agentId}
          target={revoking}
          onDone={async (revoked) => {
            setRevoking(undefined);
            if (revoked) await keys.reload();
          }}
        />
      ) : null}
    </>
  );
}

function RevokeModal(props: { agentId: string; target: Key; onDone(revoked: boolean): Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const revoke = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await client.keys.revoke(props.agentId, props.target.keyId);
      toast(`Key ${props.target.name} revoked`);
      await props.onDone(true);
    } catch (caught) {
      setError(errorText(caught));
      setBusy(false);
    }
  };
  return (
    <Modal title={`Revoke ${props.target.name}?`} labelId="revoke-title" onClose={() => void props.onDone(false)}>
      <p>Anything using this key loses access at once. This cannot be undone: to keep access, create a new key first.</p>
      <ErrorText text={error} />
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={revoke}>
          {busy ? 'Revoking…' : 'Revoke key'}
        </button>
        <button type="button" class="secondary" data-autofocus onClick={() => void props.onDone(false)}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
