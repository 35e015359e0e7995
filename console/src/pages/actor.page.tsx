/**
 * The actor inspector (ops token): one actor's statechart drawn from its machine's definition
 * with the current state marked, its context (secret material redacted by the service, as in its
 * logs), the actors its context names, and its journal as a timeline. Opened from the ops page's
 * actor list or from an order, a strategy, a withdrawal or a key while the tab holds the ops token.
 */
import type { OpsClient } from 'agent-runtime-sdk';
import { ActorContext } from '../components/actor-context.js';
import { ActorJournal } from '../components/actor-journal.js';
import { Link } from '../components/link.js';
import { OpsTokenForm } from '../components/ops-token-form.js';
import { Statechart } from '../components/statechart.js';
import { ErrorText, Loading } from '../components/status.js';
import { when } from '../format.js';
import { setOpsAccess, useOpsAccess } from '../ops-access.js';
import { useActor, useMachineChart } from '../queries/ops.queries.js';
import './actor.page.css';

export function ActorPage({ type, id }: { type: string; id: string }) {
  const ops = useOpsAccess();
  return (
    <>
      <p class="small">
        <Link to={{ page: 'ops' }}>Service operations</Link>
      </p>
      <h1>
        Actor <span class="mono">{type}</span>/<span class="mono">{id}</span>
      </h1>
      {ops ? <Inspector ops={ops} type={type} id={id} /> : <OpsTokenForm onReady={setOpsAccess} />}
    </>
  );
}

function Inspector({ ops, type, id }: { ops: OpsClient; type: string; id: string }) {
  const view = useActor(ops, type, id);
  const chart = useMachineChart(ops, type);
  return (
    <>
      <section class="card" aria-labelledby="actor-state-title">
        <h2 id="actor-state-title">State</h2>
        {view.loading && !view.data ? <Loading what="the actor" /> : null}
        <ErrorText text={view.error ?? chart.error} />
        {view.data ? (
          <dl class="facts">
            <dt>Actor status</dt>
            <dd>
              {view.data.status} <span class="muted small">(XState run status: active until a final state, then done)</span>
            </dd>
            <dt>Version</dt>
            <dd>
              {view.data.version} <span class="muted small">(machine definition v{view.data.machineVersion})</span>
            </dd>
            <dt>Updated</dt>
            <dd>{when(view.data.updatedAt)}</dd>
          </dl>
        ) : null}
        {view.data && chart.data ? <Statechart chart={chart.data} state={view.data.state} /> : null}
        {view.data && chart.data && view.data.machineVersion !== chart.data.version ? (
          <p class="muted small">
            This actor was last written by definition v{view.data.machineVersion}; the chart is v{chart.data.version}'s.
          </p>
        ) : null}
      </section>
      {view.data ? <ActorContext actor={view.data} /> : null}
      <ActorJournal ops={ops} type={type} id={id} />
    </>
  );
}
