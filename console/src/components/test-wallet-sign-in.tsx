/**
 * "Use a test wallet" on the sign-in page, when the service offers it (its embedded profile:
 * an evaluation install, never production). The wallet is a keypair made in this browser
 * (test-wallet.ts); signing in with it takes the same SIWS route as a real wallet.
 */
import type { SessionUser } from 'agent-runtime-sdk';
import { useEffect, useState } from 'preact/hooks';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { forgetTestWallet, storedTestWallet, testWallet } from '../test-wallet.js';
import { ErrorText } from './status.js';
import './test-wallet.css';

export function TestWalletSignIn({ disabled, onSignedIn }: { disabled: boolean; onSignedIn(user: SessionUser): void }) {
  const [offered, setOffered] = useState(false);
  const [address, setAddress] = useState<string | undefined>(undefined);

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

  const signIn = useAction(async () => {
    const wallet = await testWallet();
    setAddress(wallet.address);
    onSignedIn(await client.signInWithSolana(wallet.signer));
  });
  const forget = useAction(async () => {
    await forgetTestWallet();
    setAddress(undefined);
  });
  const busy = signIn.busy || forget.busy;

  if (!offered) return null;
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
        <button type="button" class="secondary" disabled={disabled || busy} onClick={() => signIn.run()}>
          {signIn.busy ? 'Signing in…' : 'Use a test wallet'}
        </button>
        {address ? (
          <button type="button" class="link" disabled={busy} onClick={() => forget.run()}>
            Delete test wallet
          </button>
        ) : null}
      </div>
      <ErrorText text={signIn.error ?? forget.error} />
    </section>
  );
}
