/**
 * The console's shell: on load it picks up the session the refresh cookie holds (no new
 * signature after a reload or in a new tab); sign-in until there is one, then the navigation and
 * the current page. A sign-out here or in another tab, or a session the service ended, shows sign-in again.
 */
import { useEffect, useState } from 'preact/hooks';
import type { SessionUser } from 'agent-runtime-sdk';
import { errorText, onSessionChange, resumeSession, signedIn, signOut as endSession } from './api.js';
import { Loading } from './components/status.js';
import { TestWalletBadge } from './components/test-wallet-badge.js';
import { Toasts } from './components/toasts.js';
import { toast } from './toast.js';
import { Link } from './components/link.js';
import { RoutePage } from './pages/route-page.js';
import { SignInPage } from './pages/sign-in.page.js';
import { navigate, useRoute } from './router.js';

export function App() {
  const [user, setUser] = useState<SessionUser | undefined>(undefined);
  const [resuming, setResuming] = useState(true);
  const route = useRoute();
  useEffect(() => {
    const unsubscribe = onSessionChange(setUser);
    resumeSession()
      .then(setUser, (error: unknown) => toast(errorText(error), 'error'))
      .finally(() => setResuming(false));
    return unsubscribe;
  }, []);
  useEffect(() => {
    // /hub/api-keys, the old key page, is the agents page (the service redirects too; this covers in-app links).
    if (route.page === 'home') navigate({ page: 'agents' }, { replace: true });
  }, [route.page]);

  // The ops pages need the ops token, not a wallet: they open without signing in.
  if (!user && route.page !== 'ops' && route.page !== 'actor') {
    if (resuming) {
      return (
        <main id="main" class="sign-in">
          <Loading what="your session" />
        </main>
      );
    }
    // The address stays as it is while signing in: the page asked for (an MCP client's access request) shows right after.
    return (
      <SignInPage
        onSignedIn={signedIn}
        {...(route.page === 'consent' ? { reason: 'An app asks for access to one of your agents. Sign in to review the request.' } : {})}
      />
    );
  }

  const signOut = async () => {
    try {
      await endSession();
    } catch (error) {
      // The local session ends either way; the service's refusal is still worth reading.
      toast(errorText(error), 'error');
    }
  };

  return (
    <div class="shell">
      <header class="topbar">
        <Link class="brand" to={{ page: 'agents' }}>
          Agent console
        </Link>
        <nav aria-label="Main">
          <Link to={{ page: 'agents' }} current={route.page === 'agents' || route.page === 'agent'}>
            Agents
          </Link>
          <Link to={{ page: 'bots' }} current={route.page === 'bots' || route.page === 'bot'}>
            Bots
          </Link>
          <Link to={{ page: 'ops' }} current={route.page === 'ops' || route.page === 'actor'}>
            Ops
          </Link>
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
        <RoutePage route={route} />
      </main>
      <Toasts />
    </div>
  );
}

const short = (address: string): string => (address.length > 12 ? `${address.slice(0, 6)}…${address.slice(-4)}` : address);
