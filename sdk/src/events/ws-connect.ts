/**
 * The WebSocket connection of an event subscription (`/mcp/:publicId/events/ws`). The token
 * travels as the subprotocol pair `bearer, <token>`, which browsers can send (they cannot set
 * headers); replay is `?lastEventId=`. Close 4401 is the credential refused, 4404 the agent unknown.
 */
import { SdkError } from '../errors.js';
import type { AgentEvent, Connect } from './event-subscription.js';

/**
 * A handler compared by its parameter both ways (as methods are): the `ws` package's handlers take
 * its richer event types, which must fit without a cast.
 */
type Handler<E> = { bivarianceHack(event: E): void }['bivarianceHack'];

/** The part of the WHATWG WebSocket the SDK uses: the browser's, Node 22's, or the `ws` package's. */
export interface WebSocketLike {
  onopen: Handler<unknown> | null;
  onmessage: Handler<{ data: unknown }> | null;
  onclose: Handler<{ code: number; reason: string }> | null;
  onerror: Handler<unknown> | null;
  close(code?: number, reason?: string): void;
}
export type WebSocketConstructor = new (url: string, protocols?: string | string[]) => WebSocketLike;

export function wsConnect(WebSocketImpl: WebSocketConstructor, url: string): Connect {
  return ({ afterId, token, onOpen, onEvent, signal }) =>
    new Promise<void>((resolve, reject) => {
      const socket = new WebSocketImpl(afterId === undefined ? url : `${url}?lastEventId=${afterId}`, ['bearer', token]);
      let opened = false;
      const onAbort = () => socket.close(1000, 'closed by the client');
      signal.addEventListener('abort', onAbort, { once: true });
      socket.onopen = () => {
        opened = true;
        onOpen();
      };
      socket.onmessage = (message) => {
        if (typeof message.data !== 'string') return;
        try {
          const event = JSON.parse(message.data) as AgentEvent;
          if (Number.isSafeInteger(event.id)) onEvent(event);
        } catch {
          // Not one of ours: nothing to deliver.
        }
      };
      socket.onerror = () => undefined;
      socket.onclose = ({ code, reason }) => {
        signal.removeEventListener('abort', onAbort);
        if (signal.aborted) return resolve();
        if (code === 4401) return reject(new SdkError('auth_error', { status: 401, message: reason || 'Unauthorized' }));
        if (code === 4404) return reject(new SdkError('unknown_error', { status: 404, message: reason || 'Agent not found' }));
        if (!opened) return reject(new SdkError('network_error', { status: 0, message: `WebSocket connection failed (${code})` }));
        resolve();
      };
    });
}
