/**
 * An agent's events as they arrive (its SSE stream, read with the owner's session), toasts for
 * fills and risk refusals, and a signal to the open page to read again. The SDK reconnects on
 * its own with `Last-Event-ID`, so nothing is missed across a dropped connection.
 */
import { useEffect, useState } from 'preact/hooks';
import type { AgentEvent } from 'agent-runtime-sdk';
import { client, errorText } from '../api.js';
import { words } from '../format.js';
import { type Order, orderSummary } from './order-table.js';
import { toast } from '../toast.js';
import { ActorLink } from './actor-link.js';
import { ScrollRegion } from './scroll-region.js';

type Link = 'connecting' | 'live' | 'reconnecting' | 'ended';
const KEPT = 50;
/** Events that change what the trading pages show. */
const REFRESHING = /^(order|position|wallet|dca)\./;

const LINK_TEXT: Record<Link, string> = {
  connecting: 'Connecting to live events…',
  live: 'Live',
  reconnecting: 'Connection lost; reconnecting (no event is lost)…',
  ended: 'Live events stopped',
};

export function LiveEvents({ publicId, onChange }: { publicId: string; onChange(): void }) {
  const [events, setEvents] = useState<AgentEvent[]>([]);
  const [link, setLink] = useState<Link>('connecting');
  const [ended, setEnded] = useState<string | undefined>(undefined);
  const onChangeRef = useLatest(onChange);

  useEffect(() => {
    setEvents([]);
    setLink('connecting');
    // Connections the SDK had opened when the link was last lost: live again only once a new one opens
    // (the count is cumulative, so `> 0` would call a dropped stream live within a quarter second).
    let openedBefore = 0;
    const subscription = client.events(publicId, {
      onReconnect: () => {
        openedBefore = subscription.connections;
        setLink('reconnecting');
      },
    });
    let stopped = false;
    const watchOpen = setInterval(() => {
      if (subscription.connections > openedBefore) setLink((now) => (now === 'connecting' || now === 'reconnecting' ? 'live' : now));
    }, 250);
    void (async () => {
      try {
        for await (const event of subscription) {
          setLink('live');
          setEvents((list) => [event, ...list].slice(0, KEPT));
          announce(event);
          if (REFRESHING.test(event.event)) onChangeRef.current();
        }
        if (!stopped) setLink('ended');
      } catch (error) {
        if (!stopped) {
          setLink('ended');
          setEnded(errorText(error));
        }
      }
    })();
    return () => {
      stopped = true;
      clearInterval(watchOpen);
      subscription.close();
    };
  }, [publicId, onChangeRef]);

  return (
    <details class="live card">
      <summary>
        <span class={`dot ${link}`} aria-hidden="true" /> Live events <span class="muted small">({LINK_TEXT[link]})</span>
      </summary>
      {ended ? <p class="error small">{ended}</p> : null}
      {events.length === 0 ? (
        <p class="empty">No event since this page opened.</p>
      ) : (
        <ScrollRegion class="events-scroll" label="Recent events, newest first">
          <ol class="events" aria-label="Recent events, newest first">
            {events.map((event) => (
              <li key={event.id}>
                <span class="mono">{new Date(event.data.at).toLocaleTimeString()}</span> <strong>{event.event}</strong> {describe(event)}
                <EventActor event={event} />
              </li>
            ))}
          </ol>
        </ScrollRegion>
      )}
    </details>
  );
}

/** Toasts for what an operator wants to hear of at once: fills, failed orders, refusals, DCA failures. */
function announce(event: AgentEvent): void {
  const order = event.data.order as Order | undefined;
  if (event.event === 'order.updated' && order?.status === 'filled') toast(`Filled: ${orderSummary(order)}`);
  else if (event.event === 'order.updated' && order?.status === 'failed')
    toast(`Order failed: ${orderSummary(order)}${order.reason ? ` (${order.reason})` : ''}`, 'error');
  else if (event.event === 'risk.blocked')
    toast(`Refused by the ${words(String(event.data.check))} check: ${String(event.data.message)}`, 'error');
  else if (event.event === 'dca.failed') toast(`DCA buy failed: ${String(event.data.message ?? event.data.error ?? '')}`, 'error');
}

function describe(event: AgentEvent): string {
  const order = event.data.order as Order | undefined;
  if (order) return `${orderSummary(order)} — ${words(order.status)}`;
  if (event.event === 'risk.blocked') return `${words(String(event.data.check))}: ${String(event.data.message)}`;
  if (typeof event.data.state === 'string') return words(event.data.state);
  return '';
}

/** A ref that always holds the latest value (the stream outlives renders). */
function useLatest<T>(value: T): { current: T } {
  const [ref] = useState(() => ({ current: value }));
  ref.current = value;
  return ref;
}

/** The actor an event is about (an order, a withdrawal), for the inspector's link. */
function EventActor({ event }: { event: AgentEvent }) {
  const order = event.data.order as { order_id?: unknown } | undefined;
  const withdrawal = event.data.withdrawal as { withdrawalId?: unknown } | undefined;
  if (typeof withdrawal?.withdrawalId === 'string')
    return <ActorLink type="withdrawal" id={withdrawal.withdrawalId} what={`withdrawal ${withdrawal.withdrawalId}`} />;
  if (typeof order?.order_id === 'string') return <ActorLink type="order" id={order.order_id} what={`order ${order.order_id}`} />;
  return null;
}
