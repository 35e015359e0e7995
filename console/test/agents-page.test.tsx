// @vitest-environment happy-dom
/**
 * The agents page: create an agent by name (the list then shows it), pause and resume one (its
 * state and the button follow the service), trading on and off; a refusal is read word for word.
 * The fake service keeps the agents in memory, so the page shows what the service says.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentListOutput } from 'agent-runtime-sdk';
import { Toasts } from '../src/components/toasts.js';
import { AgentsPage } from '../src/pages/agents.page.js';
import { type FakeService, json, refusal, signedInService } from './support/fake-service.js';
import { dismissAllToasts } from './support/toasts.js';

type Agent = AgentListOutput['items'][number];
let service: FakeService;
let agents: Agent[];

const agent = (name: string, fields: Partial<Agent> = {}): Agent => ({
  agentId: `agt_${name.toLowerCase()}`,
  publicId: `pub_${name.toLowerCase()}`,
  name,
  status: 'active',
  tradingEnabled: false,
  createdAt: '2025-01-02T03:04:05.000Z',
  isDefault: false,
  ...fields,
});

beforeEach(async () => {
  service = await signedInService();
  agents = [];
  const find = (id: string | undefined) => agents.find((item) => item.agentId === id);
  service
    .on('GET', '/api/nest/agents', () => json(200, { items: agents }))
    .on('POST', '/api/nest/agents', (request) => {
      const created = agent((request.body as { name: string }).name);
      agents.push(created);
      return json(201, created);
    })
    .on('POST', /^\/api\/nest\/agents\/([^/]+)\/(pause|resume)$/, (_request, [, id, action]) => {
      const found = find(id);
      if (!found) return refusal(404, 'Agent not found');
      found.status = action === 'pause' ? 'paused' : 'active';
      return json(200, found);
    })
    .on('PUT', /^\/api\/nest\/agents\/([^/]+)\/default$/, (_request, [, id]) => {
      for (const item of agents) item.isDefault = item.agentId === id;
      return json(200, find(id)!);
    })
    .on('PUT', /^\/api\/nest\/agents\/([^/]+)\/trading$/, (request, [, id]) => {
      const found = find(id)!;
      found.tradingEnabled = (request.body as { enabled: boolean }).enabled;
      return json(200, found);
    });
});
afterEach(() => {
  dismissAllToasts();
  cleanup();
  vi.unstubAllGlobals();
});

function openPage() {
  render(
    <>
      <AgentsPage />
      <Toasts />
    </>,
  );
}
const card = (name: string) => screen.getByRole('link', { name }).closest('li') as HTMLElement;

describe('AgentsPage', () => {
  it('creates an agent by name; the list then shows it, active with trading off', async () => {
    openPage();
    await screen.findByText('No agents yet: create your first one above.');
    const create = screen.getByRole('button', { name: 'Create agent' }) as HTMLButtonElement;
    expect(create.disabled).toBe(true);
    fireEvent.input(screen.getByLabelText('Name'), { target: { value: '  Trader ' } });
    fireEvent.click(create);
    await screen.findByRole('link', { name: 'Trader' });
    expect(service.calls('POST', '/api/nest/agents')[0]?.body).toEqual({ name: 'Trader' });
    expect(within(card('Trader')).getByText('active')).toBeTruthy();
    expect(within(card('Trader')).getByText('trading off')).toBeTruthy();
    expect(screen.getByRole('status').textContent).toContain('Created agent Trader');
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('');
    expect(screen.queryByText(/No agents yet/)).toBeNull();
  });

  it("shows the service's refusal to create and keeps the name typed", async () => {
    service.on('POST', '/api/nest/agents', () =>
      json(400, { statusCode: 400, message: ['name must be at most 100 characters'], error: 'Bad Request' }),
    );
    openPage();
    await screen.findByText(/No agents yet/);
    fireEvent.input(screen.getByLabelText('Name'), { target: { value: 'Trader' } });
    fireEvent.click(screen.getByRole('button', { name: 'Create agent' }));
    expect((await screen.findByRole('alert')).textContent).toBe('name must be at most 100 characters');
    expect((screen.getByLabelText('Name') as HTMLInputElement).value).toBe('Trader');
  });

  it('pauses and resumes an agent: its state and button follow the service', async () => {
    agents.push(agent('Alpha'), agent('Beta'));
    openPage();
    await screen.findByRole('link', { name: 'Alpha' });
    fireEvent.click(within(card('Alpha')).getByRole('button', { name: 'Pause' }));
    await waitFor(() => expect(within(card('Alpha')).getByText('paused')).toBeTruthy());
    expect(service.calls('POST', '/api/nest/agents/agt_alpha/pause')).toHaveLength(1);
    expect(screen.getByRole('status').textContent).toContain('Alpha: paused');
    // Only Alpha: Beta is untouched.
    expect(within(card('Beta')).getByRole('button', { name: 'Pause' })).toBeTruthy();

    fireEvent.click(within(card('Alpha')).getByRole('button', { name: 'Resume' }));
    await waitFor(() => expect(within(card('Alpha')).getByText('active')).toBeTruthy());
    expect(within(card('Alpha')).getByRole('button', { name: 'Pause' })).toBeTruthy();
    expect(service.calls('POST', '/api/nest/agents/agt_alpha/resume')).toHaveLength(1);
  });

  it('lists agents in the order they were made and marks the default one, which offers no Make default', async () => {
    agents.push(
      agent('Zed', { agentId: 'agt_a', createdAt: '2025-01-03T00:00:00.000Z' }),
      agent('Alpha', { agentId: 'agt_z', createdAt: '2025-01-01T00:00:00.000Z', isDefault: true }),
      agent('Mid', { agentId: 'agt_m', createdAt: '2025-01-02T00:00:00.000Z' }),
    );
    openPage();
    await screen.findByRole('link', { name: 'Alpha' });
    const names = screen.getAllByRole('listitem').map((item) => within(item).getAllByRole('link')[0]?.textContent);
    expect(names).toEqual(['Alpha', 'Mid', 'Zed']);
    expect(within(card('Alpha')).getByText('default')).toBeTruthy();
    expect(within(card('Alpha')).queryByRole('button', { name: 'Make default' })).toBeNull();
    expect(within(card('Mid')).queryByText('default')).toBeNull();

    fireEvent.click(within(card('Zed')).getByRole('button', { name: 'Make default' }));
    await waitFor(() => expect(within(card('Zed')).getByText('default')).toBeTruthy());
    expect(within(card('Alpha')).queryByText('default')).toBeNull();
    expect(within(card('Alpha')).getByRole('button', { name: 'Make default' })).toBeTruthy();
  });

  it('switches trading on, the button pressed state following', async () => {
    agents.push(agent('Alpha'));
    openPage();
    await screen.findByRole('link', { name: 'Alpha' });
    const toggle = within(card('Alpha')).getByRole('button', { name: 'Switch trading on' });
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    fireEvent.click(toggle);
    const off = await within(card('Alpha')).findByRole('button', { name: 'Switch trading off' });
    expect(off.getAttribute('aria-pressed')).toBe('true');
    expect(service.calls('PUT', '/api/nest/agents/agt_alpha/trading')[0]?.body).toEqual({ enabled: true });
  });

  it('says why a pause was refused, naming the agent', async () => {
    agents.push(agent('Alpha'));
    service.on('POST', '/api/nest/agents/agt_alpha/pause', () => refusal(409, 'Agent is archived'));
    openPage();
    await screen.findByRole('link', { name: 'Alpha' });
    fireEvent.click(within(card('Alpha')).getByRole('button', { name: 'Pause' }));
    await waitFor(() => expect(screen.getByRole('status').textContent).toContain('Alpha: Agent is archived'));
    expect(within(card('Alpha')).getByText('active')).toBeTruthy();
  });
});
