/**
 * "Actor" beside an order, a strategy, a withdrawal or a key: its page in the actor inspector.
 * Shown only while this tab holds the ops token (typed on the ops page): inspection is for the
 * service's operators, and a link that leads others to a token form would only puzzle them.
 */
import { useOpsAccess } from '../ops-access.js';
import { Link } from './link.js';

export function ActorLink({ type, id, what }: { type: string; id: string; what: string }) {
  const ops = useOpsAccess();
  if (!ops) return null;
  return (
    <Link class="actor-link small" to={{ page: 'actor', type, id }} label={`Inspect the actor of ${what}`}>
      Actor
    </Link>
  );
}
