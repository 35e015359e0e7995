/** An actor's journal as a timeline, oldest first: when, the event, the state it led to, and the event's fields on demand. */
import type { OpsClient } from 'agent-runtime-sdk';
import { useActorJournal } from '../queries/ops.queries.js';
import { Empty, ErrorText, Loading } from './status.js';

export function ActorJournal({ ops, type, id }: { ops: OpsClient; type: string; id: string }) {
  const journal = useActorJournal(ops, type, id);
  const items = journal.data?.items ?? [];
  return (
    <section class="card" aria-labelledby="actor-journal-title">
      <h2 id="actor-journal-title">Journal</h2>
      {journal.loading && !journal.data ? <Loading what="the journal" /> : null}
      <ErrorText text={journal.error} />
      {journal.data && items.length === 0 ? <Empty>No journal entries.</Empty> : null}
      {items.length > 0 ? (
        <ol class="timeline" aria-label="Journal, oldest first">
          {items.map((entry, index) => {
            const before = index > 0 ? stateText(items[index - 1]?.state) : undefined;
            const after = stateText(entry.state);
            return (
              <li key={entry.seq}>
                <time dateTime={new Date(entry.at).toISOString()}>
                  #{entry.seq} · {new Date(entry.at).toLocaleString()}
                </time>
                <span class="mono">{eventType(entry.event)}</span> → <span class="mono">{after}</span>
                {before !== undefined && before === after ? <span class="muted small"> (same state)</span> : null}
                <details>
                  <summary class="small">Event fields</summary>
                  <pre class="small">{JSON.stringify(entry.event, null, 2)}</pre>
                </details>
              </li>
            );
          })}
        </ol>
      ) : null}
      {journal.data?.nextAfterSeq !== undefined ? <p class="muted small">Showing the first {items.length} entries.</p> : null}
    </section>
  );
}

const stateText = (state: unknown): string => (typeof state === 'string' ? state : JSON.stringify(state));

const eventType = (event: unknown): string =>
  event && typeof event === 'object' && 'type' in event ? String((event as { type: unknown }).type) : JSON.stringify(event);
