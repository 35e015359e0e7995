import type { ActorView, OpsClient } from 'agent-runtime-sdk';
import { useActor, useActorJournal } from '../queries/ops.queries.js';
import { when } from '../format.js';
import { Empty, ErrorText } from './status.js';

/** One actor as `agentctl get` and `agentctl journal` print it. */
export function OpsActorDetail({ ops, actor }: { ops: OpsClient; actor: ActorView }) {
  const view = useActor(ops, actor);
  const journal = useActorJournal(ops, actor);
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
