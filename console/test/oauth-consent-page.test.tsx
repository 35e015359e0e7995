// @vitest-environment happy-dom
/**
 * The consent page of OAuth sign-in for MCP clients: the client's name as its own claim and the
 * host the browser returns to; the agent fixed when the client named one, else picked; the scope
 * (manage asks the authenticator code); Approve and Deny send the decision with the session and
 * CSRF, then the browser goes where the service says. A gone request, a missing id and the
 * service's refusals read in the service's words. Signed out, sign-in comes first on the same address.
 */
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { client } from '../src/api.js';
import { App } from '../src/app.js';
import { OAuthConsentPage } from '../src/pages/oauth-consent.page.js';
import { type FakeService, FakeService as Service, json, OPERATOR, refusal, signedInService } from './support/fake-service.js';

const AUTHORIZATION = '/api/nest/oauth/authorizations/az_1';
const CONSENT = '/api/nest/oauth/consent';
const REDIRECT = 'http://127.0.0.1:33418/callback';

/** A request as the authorize route records it; `agent` present when the client named an agent's MCP address. */
const request = (overrides: Record<string, unknown> = {}) => ({
  authorizationId: 'az_1',
  clientId: 'https://client.example/metadata.json',
  clientName: 'Desk Assistant',
  clientUri: 'https://desk.example',
  redirectUri: REDIRECT,
  redirectHost: '127.0.0.1:33418',
  scope: 'trade',
  resource: 'http://agents.test/mcp/pub_1',
  agent: { agentId: 'agt_1', publicId: 'pub_1', name: 'Trader' },
  expiresAt: '2025-01-02T03:14:05.000Z',
  ...overrides,
});

let service: FakeService;
let assign: MockInstance<(url: string | URL) => void>;
beforeEach(async () => {
  service = await signedInService();
  assign = vi.spyOn(window.location, 'assign').mockImplementation(() => undefined);
  service.on('POST', CONSENT, (sent) => {
    const body = sent.body as { decision?: string };
    return json(200, {
      redirectTo: body.decision === 'deny' ? `${REDIRECT}?error=access_denied&state=s1` : `${REDIRECT}?code=c1&state=s1`,
    });
  });
});
afterEach(() => {
  cleanup();
  assign.mockRestore();
  vi.unstubAllGlobals();
});

const approve = () => screen.getByRole('button', { name: 'Approve' }) as HTMLButtonElement;

describe('OAuthConsentPage', () => {
  it('says who asks as a claim and shows where the browser goes back to; Approve sends the agent and scope, then leaves', async () => {
    service.on('GET', AUTHORIZATION, () => json(200, request()));
    render(<OAuthConsentPage authorizationId="az_1" />);
    const heading = await screen.findByRole('heading', { level: 1 });
    expect(heading.textContent).toBe('Desk Assistant wants to act on your agent');
    expect(screen.getByTestId('redirect-host').textContent).toBe('127.0.0.1:33418');
    expect(screen.getByText(/nobody has checked it/).textContent).toContain('Its site (desk.example) is on another host than that.');
    // The agent the client named is fixed: no picker, and no list of agents read.
    expect(screen.getByText('Trader')).toBeTruthy();
    expect(screen.queryByRole('combobox', { name: 'Agent' })).toBeNull();
    expect(service.calls('GET', '/api/nest/agents')).toEqual([]);
    // The scope asked for is chosen and marked; each scope says in one line what it allows.
    expect((screen.getByRole('radio', { name: /^trade/ }) as HTMLInputElement).checked).toBe(true);
    expect(within(screen.getByRole('radio', { name: /^trade/ }).closest('label')!).getByText('asked for')).toBeTruthy();
    expect(screen.getByRole('radio', { name: /^read/ }).closest('label')?.textContent).toContain('Changes nothing.');

    fireEvent.click(screen.getByRole('radio', { name: /^read/ }));
    fireEvent.click(approve());
    await waitFor(() => expect(assign).toHaveBeenCalledWith(`${REDIRECT}?code=c1&state=s1`));
    const [sent] = service.calls('POST', CONSENT);
    expect(sent?.body).toEqual({ authorizationId: 'az_1', agentId: 'agt_1', scope: 'read' });
    expect(sent?.headers.get('x-csrf-token')).toBe('csrf-token');
    expect(sent?.headers.get('authorization')).toBe('Bearer session-token');
    expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('Taking you back to 127.0.0.1:33418…');
  });

  it('chooses the narrowest scope at first when the client asks for several', async () => {
    service.on('GET', AUTHORIZATION, () => json(200, request({ scope: 'manage trade read' })));
    render(<OAuthConsentPage authorizationId="az_1" />);
    expect(((await screen.findByRole('radio', { name: /^read/ })) as HTMLInputElement).checked).toBe(true);
    expect(screen.getAllByText('asked for')).toHaveLength(3);
    expect(screen.queryByLabelText('Authenticator code')).toBeNull();
  });

  it('lets the operator pick the agent when the client named none; Approve waits for the choice', async () => {
    service
      .on('GET', AUTHORIZATION, () => json(200, request({ agent: undefined, resource: undefined, scope: 'read' })))
      .on('GET', '/api/nest/agents', () =>
        json(200, {
          items: [
            {
              agentId: 'agt_1',
              publicId: 'pub_1',
              name: 'Trader',
              status: 'active',
              tradingEnabled: true,
              createdAt: '2025-01-01T00:00:00.000Z',
            },
            {
              agentId: 'agt_2',
              publicId: 'pub_2',
              name: 'Watcher',
              status: 'active',
              tradingEnabled: false,
              createdAt: '2025-01-02T00:00:00.000Z',
            },
          ],
        }),
      );
    render(<OAuthConsentPage authorizationId="az_1" />);
    const picker = (await screen.findByRole('combobox', { name: 'Agent' })) as HTMLSelectElement;
    expect(picker.value).toBe('');
    expect(approve().disabled).toBe(true);
    fireEvent.change(picker, { target: { value: 'agt_2' } });
    expect(approve().disabled).toBe(false);
    fireEvent.click(approve());
    await waitFor(() => expect(assign).toHaveBeenCalled());
    expect(service.calls('POST', CONSENT)[0]?.body).toEqual({ authorizationId: 'az_1', agentId: 'agt_2', scope: 'read' });
  });

  it('asks the authenticator code for manage; a wrong one reads the service refusal with the field cleared', async () => {
    service.on('GET', AUTHORIZATION, () => json(200, request({ scope: 'read' })));
    render(<OAuthConsentPage authorizationId="az_1" />);
    fireEvent.click(await screen.findByRole('radio', { name: /^manage/ }));
    const code = screen.getByLabelText('Authenticator code') as HTMLInputElement;
    expect(approve().disabled).toBe(true);
    fireEvent.input(code, { target: { value: '000000' } });
    expect(approve().disabled).toBe(false);

    service.on('POST', CONSENT, () => refusal(400, 'Verification failed'));
    fireEvent.click(approve());
    expect((await screen.findByRole('alert')).textContent).toBe('Verification failed');
    expect(code.value).toBe('');
    expect(assign).not.toHaveBeenCalled();

    service.on('POST', CONSENT, () => json(200, { redirectTo: `${REDIRECT}?code=c2&state=s1` }));
    fireEvent.input(code, { target: { value: '123456' } });
    fireEvent.click(approve());
    await waitFor(() => expect(assign).toHaveBeenCalledWith(`${REDIRECT}?code=c2&state=s1`));
    expect(service.calls('POST', CONSENT)[1]?.body).toEqual({ authorizationId: 'az_1', agentId: 'agt_1', scope: 'manage', code: '123456' });
  });

  it('sends no code for read or trade even after one was typed for manage', async () => {
    service.on('GET', AUTHORIZATION, () => json(200, request()));
    render(<OAuthConsentPage authorizationId="az_1" />);
    fireEvent.click(await screen.findByRole('radio', { name: /^manage/ }));
    fireEvent.input(screen.getByLabelText('Authenticator code'), { target: { value: '123456' } });
    fireEvent.click(screen.getByRole('radio', { name: /^trade/ }));
    expect(screen.queryByLabelText('Authenticator code')).toBeNull();
    fireEvent.click(approve());
    await waitFor(() => expect(assign).toHaveBeenCalled());
    expect(service.calls('POST', CONSENT)[0]?.body).toEqual({ authorizationId: 'az_1', agentId: 'agt_1', scope: 'trade' });
  });

  it('Deny sends the refusal and goes back with access_denied', async () => {
    service.on('GET', AUTHORIZATION, () => json(200, request()));
    render(<OAuthConsentPage authorizationId="az_1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Deny' }));
    await waitFor(() => expect(assign).toHaveBeenCalledWith(`${REDIRECT}?error=access_denied&state=s1`));
    expect(service.calls('POST', CONSENT)[0]?.body).toEqual({ authorizationId: 'az_1', decision: 'deny' });
  });

  it("shows the service's refusal of an approval in its words, and leaves nowhere", async () => {
    service
      .on('GET', AUTHORIZATION, () => json(200, request()))
      .on('POST', CONSENT, () => refusal(409, 'Authorization request already decided'));
    render(<OAuthConsentPage authorizationId="az_1" />);
    fireEvent.click(await screen.findByRole('button', { name: 'Approve' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Authorization request already decided');
    expect(assign).not.toHaveBeenCalled();
    expect(approve().disabled).toBe(false);
  });

  it('says an expired or unknown request is gone, in the service words, with no form', async () => {
    service.on('GET', AUTHORIZATION, () => refusal(404, 'Authorization request not found or expired'));
    render(<OAuthConsentPage authorizationId="az_1" />);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('This access request has expired or is unknown');
    expect(screen.getByText('Authorization request not found or expired')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Approve' })).toBeNull();
  });

  it('an address without a request id asks the service nothing', async () => {
    render(<OAuthConsentPage authorizationId="" />);
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('This access request has expired or is unknown');
    expect(screen.getByText('This address does not name an access request.')).toBeTruthy();
    expect(service.calls('GET', /^\/api\/nest\/oauth\//)).toEqual([]);
  });

  it('a failed read says what went wrong and reads again on Try again', async () => {
    service.on('GET', AUTHORIZATION, () => refusal(403, 'Forbidden'));
    render(<OAuthConsentPage authorizationId="az_1" />);
    expect((await screen.findByRole('alert')).textContent).toBe('Forbidden');
    service.on('GET', AUTHORIZATION, () => json(200, request()));
    fireEvent.click(screen.getByRole('button', { name: 'Try again' }));
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('Desk Assistant wants to act on your agent');
  });
});

describe('the consent address, signed out', () => {
  it('asks to sign in first, then shows the request on the same address', async () => {
    // The client beforeEach signed in signs out: this test starts from a browser without a session.
    service.on('POST', '/api/nest/auth/logout', () => json(200, { success: true }));
    await client.signOut();
    const fake = new Service()
      .on('GET', '/api/nest/auth/csrf', () => json(200, { csrfToken: 'csrf-token' }))
      .on('POST', '/api/nest/auth/refresh', () => refusal(401, 'Unauthorized'))
      .on('POST', '/api/nest/auth/nonce', () =>
        json(200, { message: `example.com wants you to sign in\n${OPERATOR.walletAddress}\n\nNonce: 1` }),
      )
      .on('POST', '/api/nest/auth/login', () => json(200, { accessToken: 'session-token', refreshToken: 'refresh-token', user: OPERATOR }))
      .on('GET', AUTHORIZATION, () => json(200, request()));
    vi.stubGlobal('fetch', fake.fetch);
    const publicKey = { toString: () => OPERATOR.walletAddress };
    vi.stubGlobal('solana', { publicKey, connect: async () => ({ publicKey }), signMessage: async () => new Uint8Array(64) });
    window.history.replaceState(null, '', '/oauth/consent?authorization_id=az_1');

    render(<App />);
    const signIn = await screen.findByRole('button', { name: 'Sign in with a Solana wallet' });
    expect(screen.getByText('An app asks for access to one of your agents. Sign in to review the request.')).toBeTruthy();
    expect(fake.calls('GET', AUTHORIZATION)).toEqual([]);
    fireEvent.click(signIn);
    expect((await screen.findByRole('heading', { level: 1, name: /wants to act on your agent/ })).textContent).toBe(
      'Desk Assistant wants to act on your agent',
    );
    expect(window.location.pathname + window.location.search).toBe('/oauth/consent?authorization_id=az_1');
  });
});
