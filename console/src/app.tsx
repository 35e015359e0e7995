/**
 * The console's shell: on load it picks up the session the refresh cookie holds (no new
 * signature after a reload or in a new tab); sign-in until there is one, then the navigation and
 * the current page. A sign-out here or in another tab, or a session the service ended, shows sign-in again.
 */
import { useEffect, useState } from 'preact/hooks';
import type { SessionUser } from '../../sdk/src/index.js';
import { errorText, onSessionChange, resumeSession, signedIn, signOut as endSession } from './api.js';
import { Loading } from './components/status.js';
import { TestWalletBadge } from './components/test-wallet-badge.js';
import { Toasts, toast } from './components/toasts.js';
import { parseAgentPath } from './components/agent-tabs.js';
import { AgentShell } from './pages/agent-shell.js';
import { AgentsPage } from './pages/agents.page.js';
import { OpsPage } from './pages/ops.page.js';
import { SignInPage } from './pages/sign-in.page.js';
import { navigate, onLinkClick, usePath } from './router.js';

const AGENTS_PATH = '/agents';
const OPS_PATH = '/ops';

export function App() {
  const [user, setUser] = useState<SessionUser | undefined>(undefined);
  const [resuming, setResuming] = useState(true);
  const path = usePath();
  useEffect(() => {
    const unsubscribe = onSessionChange(setUser);
    resumeSession()
      .then(setUser, (error: unknown) => toast(errorText(error), 'error'))
      .finally(() => setResuming(false));
    return unsubscribe;
  }, []);
  useEffect(() => {
    // Interface 4.8: /hub/api-keys is the agents page (the service redirects too; this covers in-app links).
    if (path === '/' || path === '/hub/api-keys') navigate(AGENTS_PATH, { replace: true });
  }, [path]);

  // The ops page needs the ops token, not a wallet: it opens without signing in.
  if (!user && path !== OPS_PATH) {
    if (resuming) {
      return (
        <main id="main" class="sign-in">
          <Loading what="your session" />
        </main>
      );
    }
    return <SignInPage onSignedIn={signedIn} />;
  }

  const signOut = async () => {
    try {
      await endSession();
    } catch (error) {
      // The local session ends either way; the service's refusal is still worth reading.
      toast(errorText(error), 'error');
    }
  };
  const agentRoute = parseAgentPath(path);

  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href={AGENTS_PATH} onClick={(event) => onLinkClick(event, AGENTS_PATH)}>
          Agent console
        </a>
        <nav aria-label="Main">
          <a
            href={AGENTS_PATH}
            aria-current={path.startsWith(AGENTS_PATH) ? 'page' : undefined}
            onClick={(event) => onLinkClick(event, AGENTS_PATH)}
          >
            Agents
          </a>
          <a href={OPS_PATH} aria-current={path === OPS_PATH ? 'page' : undefined} onClick={(event) => onLinkClick(event, OPS_PATH)}>
            Ops
          </a>
        </nav>
        {user ? (
          <div class="who">
            <span class="address" title={user.walletAddress}>
              {short(user.walletAddress)}
            </span>
            <TestWalletBadge address={user.walletAddress} />
            <button type="button" class="secondary" onClick={signOut}>
              Sign out
            </button>
          </div>
        ) : null}
      </header>
      <main id="main">
        {path === OPS_PATH ? <OpsPage /> : null}
        {path !== OPS_PATH && agentRoute ? <AgentShell agentId={agentRoute.agentId} section={agentRoute.section} /> : null}
        {path !== OPS_PATH && !agentRoute ? <AgentsPage /> : null}
      </main>
      <Toasts />
    </div>
  );
}

const short = (address: string): string => (address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address);
