/**
 * The service operator's page (ops token): the trading kill switch per chain, operation
 * families on and off, and actor inspection as `agentctl` shows it. The token is typed here
 * and kept in this page's memory only (never in storage, gone on reload or "Forget token").
 */
import { useState } from 'preact/hooks';
import type { ActorView, CatalogView, OpsChain } from '../../../sdk/src/index.js';
import { OpsClient } from '../../../sdk/src/index.js';
import { errorText } from '../api.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { toast } from '../components/toasts.js';
import { when } from '../format.js';
import { useLoad } from '../use-load.js';
import { ScrollRegion } from '../components/scroll-region.js';

export function OpsPage() {
  const [ops, setOps] = useState<OpsClient | undefined>(undefined);
  return (
    <>
      <h1>Service operations</h1>
      {ops ? (
        <>
          <p>
            <button type="button" class="secondary" onClick={() => setOps(undefined)}>
              Forget token
            </button>
          </p>
          <KillSwitch ops={ops} />
          <Catalog ops={ops} />
          <Actors ops={ops} />
        </>
      ) : (
        <TokenForm onReady={setOps} />
      )}
    </>
  );
}

function TokenForm({ onReady }: { onReady(ops: OpsClient): void }) {
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const ops = new OpsClient({ baseUrl: window.location.origin, opsToken: token.trim() });
    try {
      // Checked at once, so a wrong token is said here rather than on every section.
      await ops.killSwitch.get();
      setToken('');
      onReady(ops);
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card narrow" aria-labelledby="ops-token-title">
      <h2 id="ops-token-title">Operator access</h2>
      <form onSubmit={submit}>
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
        <ErrorText text={error} />
        <div class="actions">
          <button type="submit" disabled={busy || token.trim() === ''}>
            {busy ? 'Checking…' : 'Continue'}
          </button>
        </div>
      </form>
    </section>
  );
}

function KillSwitch({ ops }: { ops: OpsClient }) {
  const status = useLoad(() => ops.killSwitch.get(), [ops]);
  const [busy, setBusy] = useState<OpsChain | undefined>(undefined);
  const flip = async (chain: OpsChain, active: boolean) => {
    setBusy(chain);
    try {
      await ops.killSwitch.set({ chain, active });
      toast(active ? `Trading stopped on ${chain}` : `Trading may resume on ${chain}`);
      await status.reload();
    } catch (caught) {
      toast(errorText(caught), 'error');
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <section class="card" aria-labelledby="kill-title">
      <h2 id="kill-title">Kill switch</h2>
      <p class="muted small">On: no new order and no approval runs on that chain, on every process, until switched off.</p>
      {status.loading && !status.data ? <Loading what="the kill switch" /> : null}
      <ErrorText text={status.error} />
      {status.data ? (
        <ul class="switches">
          {status.data.chains.map((item) => {
            const action = busy === item.chain ? 'Switching…' : item.active ? 'Switch off' : 'Stop trading';
            return (
              <li key={item.chain}>
                <span>
                  <strong>{item.chain}</strong>{' '}
                  <span class={`badge ${item.active ? 'off' : 'on'}`}>{item.active ? 'trading stopped' : 'trading allowed'}</span>
                  {item.active && item.since ? <span class="muted small"> since {when(item.since)}</span> : null}
                  {item.source === 'configuration' ? <span class="muted small"> (set by configuration)</span> : null}
                </span>
                <button
                  type="button"
                  class={item.active ? '' : 'danger'}
                  disabled={busy !== undefined}
                  aria-pressed={item.active}
                  aria-label={`Kill switch ${item.chain}: ${action}`}
                  onClick={() => void flip(item.chain, !item.active)}
                >
                  {action}
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}

function Catalog({ ops }: { ops: OpsClient }) {
  const catalog = useLoad(() => ops.catalog.get(), [ops]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  if (!catalog.data)
    return <section class="card">{catalog.error ? <ErrorText text={catalog.error} /> : <Loading what="the catalog" />}</section>;
  const view: CatalogView = catalog.data;
  const families = [...new Set(view.operations.map((op) => op.family))].sort();
  const toggle = async (family: string, on: boolean) => {
    setBusy(true);
    setError(undefined);
    const disabled = new Set(view.settings.disabledFamilies);
    if (on) disabled.delete(family);
    else disabled.add(family);
    try {
      await ops.catalog.set({ disabledFamilies: [...disabled].sort(), disabledOperations: view.settings.disabledOperations });
      toast(`${family} ${on ? 'on' : 'off'}`);
      await catalog.reload();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="catalog-title">
      <h2 id="catalog-title">Operation families</h2>
      <p class="muted small">
        A family switched off is gone for everyone (MCP tools and REST) at once, on every process. Catalog version {view.version}.
        {view.settings.disabledOperations.length > 0 ? ` Operations off by name: ${view.settings.disabledOperations.join(', ')}.` : ''}
      </p>
      <ErrorText text={error} />
      <fieldset class="families" disabled={busy}>
        <legend class="sr-only">Families switched on</legend>
        {families.map((family) => {
          const count = view.operations.filter((op) => op.family === family).length;
          return (
            <label key={family} class="check">
              <input
                type="checkbox"
                checked={!view.settings.disabledFamilies.includes(family)}
                onChange={(event) => void toggle(family, event.currentTarget.checked)}
              />
              {family} <span class="muted small">({count} operations)</span>
            </label>
          );
        })}
      </fieldset>
    </section>
  );
}

function Actors({ ops }: { ops: OpsClient }) {
  const types = useLoad(() => ops.actors.types(), [ops]);
  const [type, setType] = useState('');
  const [state, setState] = useState('');
  const [filter, setFilter] = useState({ type: '', state: '' });
  const [selected, setSelected] = useState<ActorView | undefined>(undefined);
  const list = useLoad(
    async () => (filter.type ? ops.actors.list(filter.type, { limit: 50, ...(filter.state ? { state: filter.state } : {}) }) : undefined),
    [ops, filter],
  );
  const chosenType = type || types.data?.types[0] || '';
  return (
    <section class="card" aria-labelledby="actors-title">
      <h2 id="actors-title">Actors</h2>
      <ErrorText text={types.error} />
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
          setSelected(undefined);
          setFilter({ type: chosenType, state: state.trim() });
        }}
      >
        <label>
          Actor type
          <select value={chosenType} onChange={(event) => setType(event.currentTarget.value)}>
            {(types.data?.types ?? []).map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </label>
        <label>
          In state (optional)
          <input value={state} onInput={(event) => setState(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={!chosenType}>
          List actors
        </button>
      </form>
      {list.loading && filter.type ? <Loading what="actors" /> : null}
      <ErrorText text={list.error} />
      {list.data && list.data.items.length === 0 ? (
        <Empty>
          No {filter.type} actor{filter.state ? ` in state ${filter.state}` : ''}.
        </Empty>
      ) : null}
      {list.data && list.data.items.length > 0 ? (
        <ScrollRegion class="table-wrap" label={`Actors of type ${filter.type}`}>
          <table class="stacked">
            <caption class="sr-only">Actors of type {filter.type}</caption>
            <thead>
              <tr>
                <th scope="col">Id</th>
                <th scope="col">Machine state</th>
                <th scope="col">Version</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data.items.map((actor) => (
                <tr key={actor.id}>
                  <td data-label="Id">
                    <button type="button" class="link mono" aria-label={`Inspect ${actor.id}`} onClick={() => setSelected(actor)}>
                      {actor.id}
                    </button>
                  </td>
                  <td class="mono" data-label="Machine state">
                    {JSON.stringify(actor.state)}
                  </td>
                  <td data-label="Version">{actor.version}</td>
                  <td data-label="Updated">{when(actor.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollRegion>
      ) : null}
      {selected ? <ActorDetail ops={ops} actor={selected} /> : null}
    </section>
  );
}

/** One actor as `agentctl get` and `agentctl journal` print it. */
function ActorDetail({ ops, actor }: { ops: OpsClient; actor: ActorView }) {
  const view = useLoad(() => ops.actors.get(actor.type, actor.id), [ops, actor]);
  const journal = useLoad(() => ops.actors.journal(actor.type, actor.id, { limit: 100 }), [ops, actor]);
  return (
    <article class="actor" aria-labelledby="actor-title">
      <h3 id="actor-title">
        {actor.type}/{actor.id}
      </h3>
      <ErrorText text={view.error} />
      {view.data ? (
        <dl class="facts">
          <dt>Machine state</dt>
          <dd class="mono">{JSON.stringify(view.data.state)}</dd>
          <dt>Actor status</dt>
          <dd>
            {view.data.status} <span class="muted small">(XState run status: active until a final state, then done; error; stopped)</span>
          </dd>
          <dt>Version</dt>
          <dd>
            {view.data.version} <span class="muted small">(machine definition v{view.data.machineVersion})</span>
          </dd>
          <dt>Updated</dt>
          <dd>{when(view.data.updatedAt)}</dd>
          <dt>Context</dt>
          <dd>
            {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take focus, or a keyboard cannot scroll it (WCAG 2.1.1) */}
            <section class="json" tabIndex={0} aria-label="Context">
              <pre>{JSON.stringify(view.data.context, null, 2)}</pre>
            </section>
          </dd>
        </dl>
      ) : null}
      <h4>Journal</h4>
      <ErrorText text={journal.error} />
      {journal.data && journal.data.items.length === 0 ? <Empty>No journal entries.</Empty> : null}
      {journal.data && journal.data.items.length > 0 ? (
        <ol class="journal" aria-label="Journal, oldest first">
          {journal.data.items.map((entry) => (
            <li key={entry.seq}>
              <span class="mono">#{entry.seq}</span> {new Date(entry.at).toLocaleString()} —{' '}
              <span class="mono">{eventType(entry.event)}</span> → <span class="mono">{JSON.stringify(entry.state)}</span>
            </li>
          ))}
        </ol>
      ) : null}
    </article>
  );
}

const eventType = (event: unknown): string =>
  event && typeof event === 'object' && 'type' in event ? String((event as { type: unknown }).type) : JSON.stringify(event);
