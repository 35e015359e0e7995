/** The ops token, typed here and checked at once; kept in the page's memory only. */
import { useState } from 'preact/hooks';
import { OpsClient } from 'agent-runtime-sdk';
import { useAction } from '../hooks/use-action.js';
import { ErrorText } from './status.js';

export function OpsTokenForm({ onReady }: { onReady(ops: OpsClient): void }) {
  const [token, setToken] = useState('');
  const check = useAction(async () => {
    const ops = new OpsClient({ baseUrl: window.location.origin, opsToken: token.trim() });
    // Checked at once, so a wrong token is said here rather than on every section.
    await ops.killSwitch.get();
    setToken('');
    onReady(ops);
  });
  return (
    <section class="card narrow" aria-labelledby="ops-token-title">
      <h2 id="ops-token-title">Operator access</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void check.run();
        }}
      >
        <label>
          Ops token
          <input
            type="password"
            autoComplete="off"
            required
            value={token}
            aria-describedby="ops-token-help"
            onInput={(event) => setToken(event.currentTarget.value)}
          />
        </label>
        <p id="ops-token-help" class="muted small">
          The service's OPS_TOKEN (its DATA_DIR/secrets.json when generated). Kept in this tab's memory only.
        </p>
        <ErrorText text={check.error} />
        <div class="actions">
          <button type="submit" disabled={check.busy || token.trim() === ''}>
            {check.busy ? 'Checking…' : 'Continue'}
          </button>
        </div>
      </form>
    </section>
  );
}
