// @vitest-environment happy-dom
/**
 * Live events: the agent's SSE stream read with the owner's session through the SDK, events
 * listed newest first as they arrive, fills and refusals as notices, the open page told to read
 * again; a dropped connection says it is reconnecting and resumes after the last event seen
 * (`Last-Event-ID`), so nothing is missed; a refused stream says why.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveEvents } from '../src/components/live-events.js';
import { Toasts } from '../src/components/toasts.js';
import { FakeEventStream, type FakeService, refusal, signedInService } from './support/fake-service.js';
import { order } from './support/order.fixture.js';
import { dismissAllToasts } from './support/toasts.js';

const STREAM = '/mcp/pub_1/events/sse';
const AT = '2025-01-02T03:04:05.000Z';
let service: FakeService;
let streams: FakeEventStream[];

beforeEach(async () => {
  service = await signedInService();
  streams = [];
  service.on('GET', STREAM, () => {
    const stream = new FakeEventStream();
    streams.push(stream);
    return stream.open();
  });
});
afterEach(() => {
  dismissAllToasts();
  cleanup();
  vi.unstubAllGlobals();
});

function open(onChange = vi.fn()) {
  render(
    <>
      <LiveEvents publicId="pub_1" onChange={onChange} />
      <Toasts />
    </>,
  );
  fireEvent.click(screen.getByText('Live events'));
  return onChange;
}

const listed = () =>
  within(screen.getByRole('list', { name: 'Recent events, newest first' }))
    .getAllByRole('listitem')
    .map((item) => item.querySelector('strong')?.textContent);

describe('LiveEvents', () => {
  it('lists events newest first as they arrive, with notices for fills and refusals', async () => {
    const onChange = open();
    expect(screen.getByText('No event since this page opened.')).toBeTruthy();
    await waitFor(() => expect(streams).toHaveLength(1));
    const [request] = service.calls('GET', STREAM);
    expect(request?.headers.get('authorization')).toBe('Bearer session-token');
    expect(request?.headers.get('last-event-id')).toBeNull();
    await screen.findByText('(Live)');

    streams[0]!.send(11, 'agent.updated', { agentId: 'agt_1', at: AT, state: 'paused' });
    await waitFor(() => expect(listed()).toEqual(['agent.updated']));
    expect(screen.getByRole('listitem').textContent).toContain('paused');
    expect(onChange).not.toHaveBeenCalled();

    streams[0]!.send(12, 'order.updated', { agentId: 'agt_1', at: AT, order: order() });
    await waitFor(() => expect(listed()).toEqual(['order.updated', 'agent.updated']));
    expect(screen.getByRole('status').textContent).toContain('Filled: 10 USDC → 0.065 SOL');
    expect(onChange).toHaveBeenCalledTimes(1);

    streams[0]!.send(13, 'risk.blocked', { agentId: 'agt_1', at: AT, check: 'spending_cap', message: 'Daily spending cap reached' });
    await waitFor(() =>
      expect(screen.getByRole('status').textContent).toContain('Refused by the spending cap check: Daily spending cap reached'),
    );
  });

  it('says it is reconnecting when the connection drops, and resumes after the last event seen', async () => {
    open();
    await waitFor(() => expect(streams).toHaveLength(1));
    streams[0]!.send(41, 'agent.updated', { at: AT, state: 'paused' });
    streams[0]!.send(42, 'agent.updated', { at: AT, state: 'active' });
    await waitFor(() => expect(listed()).toHaveLength(2));

    streams[0]!.end();
    await screen.findByText('(Connection lost; reconnecting (no event is lost)…)');
    await waitFor(() => expect(streams).toHaveLength(2));
    expect(service.calls('GET', STREAM)[1]?.headers.get('last-event-id')).toBe('42');
    // A replay overlapping what was shown is not shown twice.
    streams[1]!.send(42, 'agent.updated', { at: AT, state: 'active' });
    streams[1]!.send(43, 'order.updated', { at: AT, order: order({ status: 'submitted', filledOut: undefined }) });
    await waitFor(() => expect(listed()).toEqual(['order.updated', 'agent.updated', 'agent.updated']));
    await screen.findByText('(Live)');
  });

  it('says why when the service refuses the stream for good', async () => {
    service.on('GET', STREAM, () => refusal(404, 'Agent not found'));
    open();
    await screen.findByText('Agent not found');
    expect(screen.getByText('(Live events stopped)')).toBeTruthy();
  });

  it('closes the stream when the page goes', async () => {
    open();
    await waitFor(() => expect(streams).toHaveLength(1));
    const { signal } = service.calls('GET', STREAM)[0]!;
    cleanup();
    await waitFor(() => expect(signal?.aborted).toBe(true));
  });
});
