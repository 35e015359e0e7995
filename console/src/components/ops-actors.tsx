/** Actors of one type (in one state, when given), as `agentctl list` shows them, each a link to its inspector. */
import { useState } from 'preact/hooks';
import type { OpsClient } from 'agent-runtime-sdk';
import { useActors, useActorTypes } from '../queries/ops.queries.js';
import { when } from '../format.js';
import { Link } from './link.js';
import { ScrollRegion } from './scroll-region.js';
import { Empty, ErrorText, Loading } from './status.js';

export function OpsActors({ ops }: { ops: OpsClient }) {
  const types = useActorTypes(ops);
  const [type, setType] = useState('');
  const [state, setState] = useState('');
  const [filter, setFilter] = useState({ type: '', state: '' });
  const list = useActors(ops, filter);
  const chosenType = type || types.data?.types[0] || '';
  return (
    <section class="card" aria-labelledby="actors-title">
      <h2 id="actors-title">Actors</h2>
      <ErrorText text={types.error} />
      <form
        class="row"
        onSubmit={(event) => {
          event.preventDefault();
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
                    <Link class="mono" to={{ page: 'actor', type: actor.type, id: actor.id }} label={`Inspect ${actor.id}`}>
                      {actor.id}
                    </Link>
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
    </section>
  );
}
