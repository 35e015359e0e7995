/**
 * "Use a test wallet" on the sign-in page, when the service offers it (its embedded profile:
 * an evaluation install, never production). The wallet is a keypair made in this browser
 * (test-wallet.ts); signing in with it takes the same SIWS route as a real wallet.
 */
import { useEffect, useState } from 'preact/hooks';
import type { SessionUser } from '../../../sdk/src/index.js';
import { client, errorText } from '../api.js';
import { forgetTestWallet, storedTestWallet, testWallet } from '../test-wallet.js';
import { ErrorText } from './status.js';
import './test-wallet.css';

export function TestWalletSignIn({ disabled, onSignedIn }: { disabled: boolean; onSignedIn(user: SessionUser): void }) {
  const [offered, setOffered] = useState(false);
  const [address, setAddress] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    let live = true;
    // Not offered when the service says no or cannot say (an older service): the real wallets remain.
    client
      .consoleConfig()
      .then(async (config) => {
        if (!live || !config.testWallet) return;
        setOffered(true);
        setAddress((await storedTestWallet())?.address);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, []);
  if (!offered) return null;

  const signIn = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const wallet = await testWallet();
      setAddress(wallet.address);
      onSignedIn(await client.signInWithSolana(wallet.signer));
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  const forget = async () => {
    setError(undefined);
    try {
      await forgetTestWallet();
      setAddress(undefined);
    } catch (caught) {
      setError(errorText(caught));
    }
  };

  return (
    <section class="test-wallet" aria-labelledby="test-wallet-title">
      <h2 id="test-wallet-title">
        Test wallet <span class="badge test">test only</span>
      </h2>
      <p class="small">
        For trying the console without a wallet extension: a keypair made and kept in this browser. It is not a real wallet: never send
        funds to it. Offered on an evaluation install only, never in production.
      </p>
      {address ? (
        <p class="small">
          This browser's test wallet: <span class="mono">{address}</span>
        </p>
      ) : null}
      <div class="row">
        <button type="button" class="secondary" disabled={disabled || busy} onClick={signIn}>
          {busy ? 'Signing in…' : 'Use a test wallet'}
        </button>
        {address ? (
          <button type="button" class="link" disabled={busy} onClick={forget}>
            Delete test wallet
          </button>
        ) : null}
      </div>
      <ErrorText text={error} />
    </section>
  );
}
