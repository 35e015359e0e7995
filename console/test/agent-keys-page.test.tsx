// @vitest-environment happy-dom
/**
 * An agent's keys (the key management flow): a `read` or `trade` key is created at once and its secret
 * shown once; a `manage` key asks the authenticator code first and carries the step-up token;
 * a created key without its secret reads `Backend did not return a one-time secret`; revoking
 * asks first and Cancel keeps the key.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentKeysListOutput } from 'agent-runtime-sdk';
import { Toasts } from '../src/components/toasts.js';
import { AgentKeysPage } from '../src/pages/agent-keys.page.js';
import { type FakeService, json, refusal, signedInService } from './support/fake-service.js';
import { dismissAllToasts } from './support/toasts.js';

type Key = AgentKeysListOutput['items'][number];
const KEYS = '/api/nest/agents/agt_1/keys';
let service: FakeService;
let keys: Key[];

beforeEach(async () => {
  service = await signedInService();
  keys = [];
  service
    .on('GET', KEYS, () => json(200, { items: keys }))
    .on('GET', '/api/nest/agents/agt_1/control/withdraw', () => json(200, { enabled: false, allowlist: [], requireStepUp: true }))
    .on('GET', '/api/nest/agents/agt_1/oauth-grants', () => json(200, { grants: [] }))
    .on('POST', '/api/nest/agents/agt_1/control/mcp/step-up', (request) =>
      (request.body as { code: string }).code === '123456'
        ? json(201, { stepUpToken: 'sut_1', expiresAt: '2025-01-02T03:09:05.000Z' })
        : refusal(400, 'Verification failed'),
    )
    .on('POST', KEYS, (request) => {
      const { name, scope } = request.body as { name: string; scope: Key['scope'] };
      const secret = `mcpk_${name}_${'s'.repeat(30)}`;
      const key: Key = {
        keyId: `key_${keys.length + 1}`,
        name,
        prefix: secret.slice(0, 13),
        maskedSecret: `${secret.slice(0, 13)}…`,
        scope,
        createdAt: '2025-01-02T03:04:05.000Z',
        expiresAt: '2025-04-02T03:04:05.000Z',
        status: 'active',
      };
      keys.push(key);
      return json(201, { ...key, secret });
    })
    .on('DELETE', /^\/api\/nest\/agents\/agt_1\/keys\/([^/]+)$/, (_request, [, id]) => {
      const key = keys.find((item) => item.keyId === id)!;
      key.status = 'revoked';
      return json(200, key);
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
const keyTable = () => screen.getByRole('table', { name: 'API keys of this agent' });

async function createKey(name: string, scope: Key['scope']) {
  await screen.findByText("No keys yet. Create one above for your agent's runtime.");
  fireEvent.input(screen.getByLabelText('Key name'), { target: { value: name } });
  fireEvent.change(screen.getByLabelText('Scope'), { target: { value: scope } });
  fireEvent.click(screen.getByRole('button', { name: 'Create key' }));
}

describe('AgentKeysPage', () => {
  it('creates a read key at once and shows its secret once; the list shows it masked', async () => {
    open();
    await createKey('runtime', 'read');
    const modal = await screen.findByRole('dialog', { name: 'Your new key' });
    expect((within(modal).getByLabelText('Secret') as HTMLInputElement).value).toBe(`mcpk_runtime_${'s'.repeat(30)}`);
    expect(service.calls('POST', KEYS)[0]?.body).toEqual({ name: 'runtime', scope: 'read' });
    const row = within(keyTable()).getByRole('row', { name: /runtime/ });
    expect(row.textContent).toContain('mcpk_runtime_…');
    expect(row.textContent).not.toContain('s'.repeat(30));
  });

  it('shows when each key was made as a relative time, the exact time on hover (the resource fields)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2025-01-02T03:07:10.000Z'));
    keys.push({
      keyId: 'key_7',
      name: 'runtime',
      prefix: 'mcpk_runtime_',
      maskedSecret: 'mcpk_runtime_…',
      scope: 'read',
      createdAt: '2025-01-02T03:04:05.000Z',
      expiresAt: '2025-04-02T03:04:05.000Z',
      status: 'active',
    });
    open();
    const created = await within(await screen.findByRole('table', { name: 'API keys of this agent' })).findByText('3 minutes ago');
    expect(created.getAttribute('datetime')).toBe('2025-01-02T03:04:05.000Z');
    expect(screen.getByRole('columnheader', { name: 'Created' })).toBeTruthy();
    vi.useRealTimers();
  });

  it('asks the authenticator code before a manage key and sends the step-up token with it', async () => {
    open();
    await createKey('admin', 'manage');
    const dialog = await screen.findByRole('dialog', { name: 'Confirm with your authenticator' });
    expect(service.calls('POST', KEYS)).toEqual([]);
    fireEvent.input(within(dialog).getByLabelText('Authenticator code'), { target: { value: '000000' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Verify and create key' }));
    expect((await within(dialog).findByRole('alert')).textContent).toBe('Verification failed');
    expect(service.calls('POST', KEYS)).toEqual([]);

    fireEvent.input(within(dialog).getByLabelText('Authenticator code'), { target: { value: '123456' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Verify and create key' }));
    await screen.findByRole('dialog', { name: 'Your new key' });
    expect(service.calls('POST', KEYS)[0]?.body).toEqual({ name: 'admin', scope: 'manage', stepUpToken: 'sut_1' });
  });

  it('says `Backend did not return a one-time secret` when the answer has none', async () => {
    service
      .on('POST', KEYS, (request) => json(201, { keyId: 'key_x', ...(request.body as object), status: 'active' }))
      .on('DELETE', `${KEYS}/key_x`, () => json(200, { keyId: 'key_x', status: 'revoked' }));
    open();
    await createKey('runtime', 'trade');
    expect((await screen.findByRole('alert')).textContent).toBe('Backend did not return a one-time secret');
    expect(screen.queryByRole('dialog')).toBeNull();
    // The half-made key is revoked at once, and the page says so.
    expect(service.calls('DELETE', `${KEYS}/key_x`)).toHaveLength(1);
    expect(screen.getByRole('status').textContent).toContain('Key runtime revoked: its secret never reached this page. Create it again.');
  });

  it('says the secret-less key is still active when revoking it fails', async () => {
    service
      .on('POST', KEYS, (request) => json(201, { keyId: 'key_y', ...(request.body as object), status: 'active' }))
      .on('DELETE', `${KEYS}/key_y`, () => refusal(403, 'Forbidden'));
    open();
    await createKey('runtime', 'trade');
    expect((await screen.findByRole('alert')).textContent).toBe('Backend did not return a one-time secret');
    expect(screen.getByRole('status').textContent).toContain(
      'Key runtime is active without a secret you can copy: revoke it in the list below (Forbidden)',
    );
  });

  it('a manage key created without its secret: the modal closes and the page says so (no code asked again, no second key)', async () => {
    service
      .on('POST', KEYS, (request) => json(201, { keyId: 'key_m', ...(request.body as object), status: 'active' }))
      .on('DELETE', `${KEYS}/key_m`, () => json(200, { keyId: 'key_m', status: 'revoked' }));
    open();
    await createKey('admin', 'manage');
    const dialog = await screen.findByRole('dialog', { name: 'Confirm with your authenticator' });
    fireEvent.input(within(dialog).getByLabelText('Authenticator code'), { target: { value: '123456' } });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Verify and create key' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Backend did not return a one-time secret');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(service.calls('POST', KEYS)).toHaveLength(1);
  });

  it('revokes a key only after confirmation', async () => {
    keys.push({
      keyId: 'key_9',
      name: 'old',
      prefix: 'mcpk_old_xxxx',
      maskedSecret: 'mcpk_old_xxxx…',
      scope: 'read',
      createdAt: '2025-01-02T03:04:05.000Z',
      expiresAt: '2025-04-02T03:04:05.000Z',
      status: 'active',
    });
    open();
    fireEvent.click(await screen.findByRole('button', { name: 'Revoke old' }));
    let dialog = screen.getByRole('dialog', { name: 'Revoke old?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(service.calls('DELETE', `${KEYS}/key_9`)).toEqual([]);

    fireEvent.click(screen.getByRole('button', { name: 'Revoke old' }));
    dialog = screen.getByRole('dialog', { name: 'Revoke old?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Revoke key' }));
    await waitFor(() => expect(within(keyTable()).getByText('revoked')).toBeTruthy());
    expect(screen.queryByRole('button', { name: 'Revoke old' })).toBeNull();
    expect(screen.getByRole('status').textContent).toContain('Key old revoked');
  });
});
