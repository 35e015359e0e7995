// @vitest-environment happy-dom
/**
 * The actor inspector: the ops token asked first when this tab has none; then the machine's
 * statechart from its definition with the actor's current state marked (in words, not colour
 * only), its context as the service redacted it with links to the actors it names, and its
 * journal as a timeline, oldest first.
 */
import { cleanup, fireEvent, render, screen, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { MachineChart } from 'agent-runtime-sdk';
import { activePaths } from '../src/components/statechart.js';
import { setOpsAccess } from '../src/ops-access.js';
import { ActorPage } from '../src/pages/actor.page.js';
import { FakeService, json, refusal, type FakeRequest } from './support/fake-service.js';

const OPS = '/api/nest/ops';
const TOKEN = 'ops_token_value';
let service: FakeService;

const leaf = (key: string, kind: 'atomic' | 'final' = 'atomic') => ({
  id: `api-key.${key}`,
  key,
  path: [key],
  kind,
  transitions: [],
  states: [],
});
const chart: MachineChart = {
  type: 'api-key',
  version: 1,
  root: {
    id: 'api-key',
    key: 'api-key',
    path: [],
    kind: 'compound',
    initial: 'active',
    transitions: [],
    states: [
      {
        ...leaf('active'),
        transitions: [
          { trigger: 'event', event: 'key.revoke', targets: ['api-key.revoked'] },
          { trigger: 'event', event: 'key.expire', targets: ['api-key.expired'], guard: 'expiryReached' },
        ],
      },
      leaf('revoked', 'final'),
      leaf('expired', 'final'),
    ],
  },
};

beforeEach(() => {
  service = new FakeService();
  vi.stubGlobal('fetch', service.fetch);
  const authorized = (handler: (request: FakeRequest) => Response) => (request: FakeRequest) =>
    request.headers.get('authorization') === `Bearer ${TOKEN}` ? handler(request) : refusal(401, 'Unauthorized');
  service
    .on(
      'GET',
      `${OPS}/trading/kill-switch`,
      authorized(() => json(200, { active: [], chains: [] })),
    )
    .on(
      'GET',
      `${OPS}/machines/api-key`,
      authorized(() => json(200, chart)),
    )
    .on(
      'GET',
      `${OPS}/actors/api-key/key_1`,
      authorized(() =>
        json(200, {
          type: 'api-key',
          id: 'key_1',
          state: 'revoked',
          status: 'done',
          context: { keyId: 'key_1', ownerType: 'agent', ownerId: 'agt_1', secretHash: '[Redacted]' },
          version: 2,
          machineVersion: 1,
          updatedAt: '2025-01-02T03:04:05.000Z',
        }),
      ),
    )
    .on(
      'GET',
      `${OPS}/actors/api-key/key_1/journal`,
      authorized(() =>
        json(200, {
          items: [
            { seq: 1, event: { type: 'xstate.init' }, state: 'active', at: 1735787045000 },
            { seq: 2, event: { type: 'key.revoke', at: 1735787046000 }, state: 'revoked', at: 1735787046000 },
          ],
        }),
      ),
    );
});
afterEach(() => {
  cleanup();
  setOpsAccess(undefined);
  vi.unstubAllGlobals();
});

describe('ActorPage', () => {
  it('asks for the ops token, then draws the chart with the current state marked, the redacted context and the journal', async () => {
    render(<ActorPage type="api-key" id="key_1" />);
    fireEvent.input(screen.getByLabelText('Ops token'), { target: { value: TOKEN } });
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }));

    const current = await screen.findByRole('listitem', { name: 'State revoked (current)' });
    expect(current.getAttribute('aria-current')).toBe('true');
    expect(screen.getAllByRole('listitem', { current: true })).toHaveLength(1);
    expect(screen.getByRole('listitem', { name: 'State active' }).textContent).toContain('initial');
    expect(
      within(screen.getByRole('list', { name: 'Transitions from active' }))
        .getAllByRole('listitem')
        .map((item) => item.textContent),
    ).toEqual(['key.revoke → revoked', 'key.expire [expiryReached] → expired']);
    expect(screen.getByText(/current state:/).textContent).toContain('revoked');

    expect(screen.getByLabelText('Context').textContent).toContain('"secretHash": "[Redacted]"');
    const related = within(screen.getByRole('list', { name: 'Actors this context names' })).getAllByRole('link');
    expect(related.map((link) => link.getAttribute('href'))).toEqual(['/ops/actors/agent/agt_1']);

    const journal = await screen.findByRole('list', { name: 'Journal, oldest first' });
    expect(
      within(journal)
        .getAllByRole('listitem')
        .map((item) => item.textContent?.replace(/Event fields[\s\S]*$/, '')),
    ).toEqual([expect.stringMatching(/^#1 · .*xstate\.init → active$/), expect.stringMatching(/^#2 · .*key\.revoke → revoked$/)]);
  });

  it('reads nested and parallel state values as the nodes they name', () => {
    expect([...activePaths('paused')]).toEqual(['paused']);
    expect([...activePaths({ active: { waiting: 'idle' } })]).toEqual(['active', 'active/waiting', 'active/waiting/idle']);
    expect([...activePaths({ a: 'x', b: 'y' })]).toEqual(['a', 'a/x', 'b', 'b/y']);
  });
});
