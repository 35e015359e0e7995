/**
 * The key flow of an agent or a legacy bot: name and scope; `read` and `trade` keys are created
 * at once and their secret shown in the one-time modal; a `manage` key asks the TOTP code first
 * (step-up); revoking asks for confirmation.
 */
import { useState } from 'preact/hooks';
import { errorText } from '../api.js';
import { type Key, type KeyOwner, type KeyScope, useKeys } from '../queries/keys.queries.js';
import { useAction } from '../hooks/use-action.js';
import { ActorLink } from './actor-link.js';
import { type CredentialColumn, CredentialTable, RelativeTime } from './credential-table.js';
import { RevokeModal } from './revoke-modal.js';
import { hasSecret, MISSING_SECRET, SecretModal } from './secret-modal.js';
import { Empty, ErrorText, Loading } from './status.js';
import { StepUpModal } from './step-up-modal.js';
import { toast } from '../toast.js';

/** Name, scope, masked secret, status, creation (relative) and expiry of each key. */
const KEY_COLUMNS: CredentialColumn<Key>[] = [
  { header: 'Name', class: 'wrap', cell: (key) => key.name },
  { header: 'Scope', cell: (key) => key.scope },
  { header: 'Key', class: 'mono wrap', cell: (key) => key.maskedSecret },
  { header: 'Status', cell: (key) => <span class={`badge ${key.status}`}>{key.status}</span> },
  { header: 'Created', cell: (key) => <RelativeTime at={key.createdAt} /> },
  { header: 'Expires', cell: (key) => new Date(key.expiresAt).toLocaleDateString() },
];

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
        {keys.data && keys.data.items.length > 0 ? (
          <CredentialTable
            rows={keys.data.items}
            rowKey={(key) => key.keyId}
            label="API keys"
            caption={`API keys of this ${owner.kind}`}
            columns={KEY_COLUMNS}
            nameOf={(key) => key.name}
            revocable={(key) => key.status === 'active'}
            onRevoke={(key) => setRevoking(key)}
            extraActions={(key) => <ActorLink type="api-key" id={key.keyId} what={`key ${key.name}`} />}
          />
        ) : null}
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
        <RevokeModal
          name={revoking.name}
          labelId="revoke-title"
          confirmLabel="Revoke key"
          doneMessage={`Key ${revoking.name} revoked`}
          revoke={() => owner.revoke(revoking.keyId)}
          onDone={async (revoked) => {
            setRevoking(undefined);
            if (revoked) await keys.reload();
          }}
        >
          Anything using this key loses access at once. This cannot be undone: to keep access, create a new key first.
        </RevokeModal>
      ) : null}
    </>
  );
}
