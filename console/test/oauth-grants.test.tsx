// @vitest-environment happy-dom
/**
 * The apps signed in to an agent with OAuth, on its keys page beside its keys: client, the host it
 * returns to, scope, when it was made and last used; revoking asks first (Cancel keeps it) and
 * the service's refusal reads in its words.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Toasts } from '../src/components/toasts.js';
import { AgentKeysPage } from '../src/pages/agent-keys.page.js';
import type { OAuthGrant } from '../src/queries/oauth.queries.js';
import { type FakeService, json, refusal, signedInService } from './support/fake-service.js';
import { dismissAllToasts } from './support/toasts.js';

const GRANTS = '/api/nest/agents/agt_1/oauth-grants';
let service: FakeService;
let grants: OAuthGrant[];

const grant = (overrides: Partial<OAuthGrant> = {}): OAuthGrant => ({
  grantId: 'grt_1',
  clientId: 'https://client.example/metadata.json',
  clientName: 'Desk Assistant',
  redirectHost: '127.0.0.1:33418',
  scope: 'trade',
  createdAt: '2025-01-02T01:07:10.000Z',
  lastUsedAt: '2025-01-02T03:05:10.000Z',
  expiresAt: '2025-04-02T01:07:10.000Z',
  ...overrides,
});

beforeEach(async () => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2025-01-02T03:07:10.000Z'));
  service = await signedInService();
  grants = [grant(), grant({ grantId: 'grt_2', clientName: 'Editor', redirectHost: 'editor.example', scope: 'read', lastUsedAt: null })];
  service
    .on('GET', '/api/nest/agents/agt_1/keys', () => json(200, { items: [] }))
    .on('GET', '/api/nest/agents/agt_1/control/withdraw', () => json(200, { enabled: false, allowlist: [], requireStepUp: true }))
    .on('GET', GRANTS, () => json(200, { grants }))
    .on('DELETE', /^\/api\/nest\/agents\/agt_1\/oauth-grants\/([^/]+)$/, (_request, [, id]) => {
      const gone = grants.find((item) => item.grantId === id)!;
      grants = grants.filter((item) => item !== gone);
      return json(200, { ...gone, status: 'revoked' });
    });
});
afterEach(() => {
  dismissAllToasts();
  cleanup();
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

function open() {
  render(
    <>
      <AgentKeysPage agentId="agt_1" />
      <Toasts />
    </>,
  );
}
const grantTable = () => screen.findByRole('table', { name: 'Apps signed in to this agent with OAuth' });

describe('OAuth grants on the keys page', () => {
  it('lists each grant beside the keys: client, host it returns to, scope, created and last used', async () => {
    open();
    const table = await grantTable();
    const desk = within(table).getByRole('row', { name: /Desk Assistant/ });
    expect(
      within(desk)
        .getAllByRole('cell')
        .map((cell) => cell.textContent),
    ).toEqual(['Desk Assistant', '127.0.0.1:33418', 'trade', '2 hours ago', '2 minutes ago', 'Revoke']);
    expect(within(desk).getByText('2 hours ago').getAttribute('datetime')).toBe('2025-01-02T01:07:10.000Z');
    const editor = within(table).getByRole('row', { name: /Editor/ });
    expect(within(editor).getAllByRole('cell')[4]?.textContent).toBe('never');
    // The keys are still there, in their own table.
    expect(screen.getByText("No keys yet. Create one above for your agent's runtime.")).toBeTruthy();
  });

  it('says so when no app is signed in', async () => {
    grants = [];
    open();
    expect(await screen.findByText(/No app signed in yet/)).toBeTruthy();
    expect(screen.queryByRole('table', { name: 'Apps signed in to this agent with OAuth' })).toBeNull();
  });

  it('revokes a grant only after confirmation, with the session and CSRF', async () => {
    open();
    await grantTable();
    fireEvent.click(screen.getByRole('button', { name: 'Revoke Desk Assistant' }));
    let dialog = screen.getByRole('dialog', { name: 'Revoke Desk Assistant?' });
    expect(dialog.textContent).toContain('127.0.0.1:33418');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(service.calls('DELETE', `${GRANTS}/grt_1`)).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Revoke Desk Assistant' }));
    dialog = screen.getByRole('dialog', { name: 'Revoke Desk Assistant?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke access' }));
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Revoke Desk Assistant' })).toBeNull());
    const [sent] = service.calls('DELETE', `${GRANTS}/grt_1`);
    expect(sent?.headers.get('x-csrf-token')).toBe('csrf-token');
    expect(screen.getByRole('button', { name: 'Revoke Editor' })).toBeTruthy();
    expect(screen.getByRole('status').textContent).toContain('Access of Desk Assistant revoked');
  });

  it("keeps the dialog open with the service's words when the revocation is refused", async () => {
    service.on('DELETE', `${GRANTS}/grt_1`, () => refusal(404, 'Grant not found'));
    open();
    await grantTable();
    fireEvent.click(screen.getByRole('button', { name: 'Revoke Desk Assistant' }));
    const dialog = screen.getByRole('dialog', { name: 'Revoke Desk Assistant?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke access' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Grant not found');
  });

  it("shows the service's words when the grants cannot be read", async () => {
    service.on('GET', GRANTS, () => refusal(403, 'Forbidden'));
    open();
    expect((await screen.findByRole('alert')).textContent).toBe('Forbidden');
  });
});
