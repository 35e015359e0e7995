/**
 * The key flow of an agent or a legacy bot: name and scope; `read` and `trade` keys are created
 * at once and their secret shown in the one-time modal; a `manage` key asks the TOTP code first
 * (step-up); revoking asks for confirmation.
 */
import { useState } from 'preact/hooks';
import { errorText } from '../api.js';
import { type Key, type KeyOwner, type KeyScope, useKeys } from '../queries/keys.queries.js';
import { useAction } from '../hooks/use-action.js';
import { KeyTable } from './key-table.js';
import { RevokeKeyModal } from './revoke-key-modal.js';
import { hasSecret, MISSING_SECRET, SecretModal } from './secret-modal.js';
import { Empty, ErrorText, Loading } from './status.js';
import { StepUpModal } from './step-up-modal.js';
import { toast } from '../toast.js';

/** `version`: a new value reads the keys again (keys rotated elsewhere on the page). */
export function KeyManager({ owner, version = 0 }: { owner: KeyOwner; version?: number }) {
  const keys = useKeys(owner, version);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<KeyScope>('read');
  const [askCode, setAskCode] = useState(false);
  const [revealed, setRevealed] = useState<{ secret: string; name: string } | undefined>(undefined);
  const [revoking, setRevoking] = useState<Key | undefined>(undefined);

  // A key whose secret never arrived can never be used by anyone but whoever intercepted it: it goes at once.
  const revokeUnusable = async (created: { keyId?: unknown; name?: unknown }) => {
    const label = typeof created.name === 'string' ? created.name : name.trim();
    if (typeof created.keyId !== 'string' || created.keyId === '') {
      toast(`Key ${label} may have been created without its secret: revoke it in the list below`, 'error');
      return;
    }
    try {
      await owner.revoke(created.keyId);
      toast(`Key ${label} revoked: its secret never reached this page. Create it again.`);
    } catch (caught) {
      toast(`Key ${label} is active without a secret you can copy: revoke it in the list below (${errorText(caught)})`, 'error');
    }
  };

  const create = useAction(async (stepUpToken?: string) => {
    const created = await owner.create({ name: name.trim(), scope, ...(stepUpToken ? { stepUpToken } : {}) });
    if (!hasSecret(created.secret)) {
      await revokeUnusable(created);
      await keys.reload();
      throw new Error(MISSING_SECRET);
    }
    await keys.reload();
    setName('');
    setRevealed({ secret: created.secret, name: created.name });
  });

  const submit = (event: Event) => {
    event.preventDefault();
    create.clearError();
    if (scope === 'manage') setAskCode(true);
    else void create.run();
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
            <select value={scope} onChange={(event) => setScope(event.currentTarget.value as KeyScope)}>
              <option value="read">read: status, portfolio, research</option>
              <option value="trade">trade: read plus trading</option>
              <option value="manage">manage: everything (needs your authenticator code)</option>
            </select>
          </label>
          <button type="submit" disabled={create.busy || name.trim() === ''}>
            {create.busy ? 'Creating…' : 'Create key'}
          </button>
        </form>
        <ErrorText text={create.error} />
      </section>

      <section aria-labelledby="keys-title">
        <h2 id="keys-title">Keys</h2>
        {keys.loading && !keys.data ? <Loading what="keys" /> : null}
        <ErrorText text={keys.error} />
        {keys.data && keys.data.items.length === 0 ? <Empty>No keys yet. Create one above for your {owner.kind}'s runtime.</Empty> : null}
        {keys.data && keys.data.items.length > 0 ? <KeyTable keys={keys.data.items} ownerKind={owner.kind} onRevoke={setRevoking} /> : null}
      </section>

      {askCode ? (
        <StepUpModal
          stepUp={owner.stepUp}
          explanation={`A manage key can do everything with this ${owner.kind}. Enter the 6-digit code from your authenticator app.`}
          submitLabel="Verify and create key"
          onCancel={() => setAskCode(false)}
          onVerified={async (token) => {
            // The code was right and its token is spent: whatever the creation answers is the page's to show, not
            // the modal's (asking for a code again would create a second key when the first came back without its secret).
            setAskCode(false);
            await create.run(token);
          }}
        />
      ) : null}
      {revealed ? <SecretModal secret={revealed.secret} keyName={revealed.name} onClose={() => setRevealed(undefined)} /> : null}
      {revoking ? (
        <RevokeKeyModal
          owner={owner}
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
