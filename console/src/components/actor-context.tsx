/** An actor's context as the service shows it to ops (secret material already redacted), and links to the actors it names. */
import type { ActorView } from 'agent-runtime-sdk';
import { Link } from './link.js';

/** Context fields that name another actor, and that actor's machine type. */
const RELATED: Record<string, string> = {
  agentId: 'agent',
  botId: 'bot',
  keyId: 'api-key',
  orderId: 'order',
  strategyId: 'dca-strategy',
  withdrawalId: 'withdrawal',
  replacedBy: 'api-key',
};

/** The actors `context` names (its own id left out): `{agentId}`, or `{subjectType: 'agent', subjectId}` / `{ownerType, ownerId}`. */
function relatedActors(actor: ActorView): Array<{ type: string; id: string; field: string }> {
  const context = actor.context && typeof actor.context === 'object' ? (actor.context as Record<string, unknown>) : {};
  const found: Array<{ type: string; id: string; field: string }> = [];
  const add = (type: string | undefined, id: unknown, field: string) => {
    if (!type || typeof id !== 'string' || id === '' || (type === actor.type && id === actor.id)) return;
    if (!found.some((item) => item.type === type && item.id === id)) found.push({ type, id, field });
  };
  for (const [field, value] of Object.entries(context)) add(RELATED[field], value, field);
  for (const prefix of ['subject', 'owner']) {
    const kind = context[`${prefix}Type`];
    if (kind === 'agent' || kind === 'bot') add(kind, context[`${prefix}Id`], `${prefix}Id`);
  }
  return found;
}

export function ActorContext({ actor }: { actor: ActorView }) {
  const related = relatedActors(actor);
  return (
    <section class="card" aria-labelledby="actor-context-title">
      <h2 id="actor-context-title">Actor context</h2>
      <p class="muted small">Secret material (key hashes, tokens, signed transactions' keys) is shown as [Redacted], as in the logs.</p>
      {related.length ? (
        <ul class="related" aria-label="Actors this context names">
          {related.map((item) => (
            <li key={`${item.type}/${item.id}`}>
              <span class="muted small">{item.field}:</span>{' '}
              <Link class="mono" to={{ page: 'actor', type: item.type, id: item.id }}>
                {item.type}/{item.id}
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling box must take focus, or a keyboard cannot scroll it (WCAG 2.1.1) */}
      <section class="json" tabIndex={0} aria-label="Context">
        <pre>{JSON.stringify(actor.context, null, 2)}</pre>
      </section>
    </section>
  );
}
