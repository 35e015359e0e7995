// @vitest-environment happy-dom
/**
 * One agent's frame: its name, state and MCP endpoint, the section links (the current one
 * marked, each its own address), its live events read from its own stream; an unknown agent
 * reads the service's `Agent not found`.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AgentShell } from '../src/pages/agent-shell.js';
import { parseRoute } from '../src/routes.js';
import { FakeEventStream, type FakeService, json, refusal, signedInService } from './support/fake-service.js';

let service: FakeService;
beforeEach(async () => {
  service = await signedInService();
  service
    .on('GET', '/api/nest/agents/agt_1', () =>
      json(200, {
        agentId: 'agt_1',
        publicId: 'pub_1',
        name: 'Trader',
        status: 'paused',
        tradingEnabled: true,
        createdAt: '2025-01-02T03:04:05.000Z',
      }),
    )
    .on('GET', '/mcp/pub_1/events/sse', () => new FakeEventStream().open())
    .on('GET', '/api/nest/agents/agt_1/keys', () => json(200, { items: [] }))
    .on('GET', '/api/nest/agents/agt_1/control/withdraw', () => json(200, { enabled: false, allowlist: [], requireStepUp: true }))
    .on('GET', '/api/nest/agents/agt_1/oauth-grants', () => json(200, { grants: [] }));
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

describe('AgentShell', () => {
  it("shows the agent's name, state and endpoint, and its live events from its own stream", async () => {
    render(<AgentShell agentId="agt_1" section="overview" />);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('Trader');
    expect(screen.getByText('paused')).toBeTruthy();
    expect(screen.getByText('trading on')).toBeTruthy();
    expect(screen.getByText('/mcp/pub_1')).toBeTruthy();
    await waitFor(() => expect(service.calls('GET', '/mcp/pub_1/events/sse')).toHaveLength(1));
    expect(screen.getByText('Live events')).toBeTruthy();
  });

  it('marks the current section and moves to another by its own address', async () => {
    window.history.replaceState(null, '', '/agents/agt_1');
    render(<AgentShell agentId="agt_1" section="overview" />);
    const nav = screen.getByRole('navigation', { name: 'Agent sections' });
    const current = nav.querySelector('[aria-current="page"]');
    expect(current?.textContent).toBe('Keys and settings');
    const trading = screen.getByRole('link', { name: 'Trading' });
    expect(trading.getAttribute('href')).toBe('/agents/agt_1/trading');
    fireEvent.click(trading, { button: 0 });
    expect(window.location.pathname).toBe('/agents/agt_1/trading');
    expect(parseRoute(window.location.pathname)).toEqual({ page: 'agent', agentId: 'agt_1', section: 'trading' });
    expect(parseRoute('/agents/agt%2F1/dca')).toEqual({ page: 'agent', agentId: 'agt/1', section: 'dca' });
    // A path the table does not know is the console's home, the agents page.
    expect(parseRoute('/agents/agt_1/elsewhere')).toEqual({ page: 'agents' });
  });

  it("reads the service's `Agent not found` for an agent that is not the operator's, and opens no stream", async () => {
    service.on('GET', '/api/nest/agents/agt_1', () => refusal(404, 'Agent not found'));
    render(<AgentShell agentId="agt_1" section="overview" />);
    await waitFor(() => expect(screen.getAllByRole('alert').map((alert) => alert.textContent)).toContain('Agent not found'));
    expect(screen.queryByRole('heading', { level: 1 })).toBeNull();
    expect(service.calls('GET', '/mcp/pub_1/events/sse')).toEqual([]);
  });
});
