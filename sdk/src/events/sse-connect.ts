/**
 * The SSE connection of an event subscription, over `fetch` streaming (so it runs in Node and
 * browsers alike, and can send `Authorization`, which `EventSource` cannot). The server sends
 * a comment every 15 s: no byte for `idleTimeoutMs` means a dead connection, dropped to reconnect.
 */
import { SdkError } from '../errors.js';
import { type HttpTransport, mapAnswer } from '../http-transport.js';
import type { AgentEvent, Connect } from './event-subscription.js';
import { SseParser } from './sse-parser.js';

export function sseConnect(http: HttpTransport, path: string, idleTimeoutMs: number): Connect {
  return async ({ afterId, token, onOpen, onEvent, signal }) => {
    const exchange = await http.open({
      method: 'GET',
      path,
      signal,
      headers: () => ({
        authorization: `Bearer ${token}`,
        accept: 'text/event-stream',
        ...(afterId === undefined ? {} : { 'last-event-id': String(afterId) }),
      }),
    });
    const { response } = exchange;
    if (response.status !== 200 || !response.body) {
      let text = '';
      try {
        text = await response.text();
      } finally {
        exchange.done();
      }
      mapAnswer(response, text, false);
      throw new SdkError('invalid_response', { status: response.status, message: 'The service did not answer with an event stream' });
    }
    exchange.done();
    onOpen();
    const parser = new SseParser((message) => {
      let data: unknown;
      try {
        data = JSON.parse(message.data);
      } catch {
        return;
      }
      const id = Number(message.id);
      if (Number.isSafeInteger(id)) onEvent({ id, event: message.event, data: data as AgentEvent['data'] });
    });
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let idle = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        exchange.abort();
      }, idleTimeoutMs);
    };
    arm();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        arm();
        parser.push(value);
      }
    } catch (error) {
      if (signal.aborted) return;
      throw new SdkError('network_error', {
        status: 0,
        message: idle ? `No data from the event stream for ${idleTimeoutMs} ms` : 'The event stream broke',
        cause: error,
      });
    } finally {
      clearTimeout(timer);
      reader.releaseLock();
    }
  };
}
