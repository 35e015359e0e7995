/** Sign-in with an injected Solana wallet (SIWS) or an EIP-1193 wallet (SIWE), through the SDK. */
import { useState } from 'preact/hooks';
import { CHAINS, type SessionUser } from '../../../sdk/src/index.js';
import { client, errorText } from '../api.js';
import { ErrorText } from '../components/status.js';
import { evmSigner, hasEvmWallet, hasSolanaWallet, solanaSigner } from '../wallets.js';

// Chains the service signs EVM operators in on (README, First steps); other chains sign for Ethereum.
const SERVED_EVM_CHAINS: ReadonlySet<number> = new Set(CHAINS.flatMap((entry) => ('evmChainId' in entry ? [entry.evmChainId] : [])));

export function SignInPage({ onSignedIn }: { onSignedIn(user: SessionUser): void }) {
  const [busy, setBusy] = useState<'solana' | 'evm' | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  const signIn = async (kind: 'solana' | 'evm') => {
    setBusy(kind);
    setError(undefined);
    try {
      if (kind === 'solana') onSignedIn(await client.signInWithSolana(await solanaSigner()));
      else {
        const signer = await evmSigner();
        onSignedIn(await client.signInWithEthereum(signer, { chainId: SERVED_EVM_CHAINS.has(signer.chainId) ? signer.chainId : 1 }));
      }
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(undefined);
    }
  };

  const solana = hasSolanaWallet();
  const evm = hasEvmWallet();
  return (
    <main id="main" class="sign-in">
      <section class="card narrow" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in</h1>
        <p>Sign a message with your wallet to manage your agents. Nothing is sent on chain and it costs nothing.</p>
        <div class="stack">
          <button type="button" disabled={!solana || busy !== undefined} onClick={() => signIn('solana')}>
            {busy === 'solana' ? 'Waiting for the wallet…' : 'Sign in with a Solana wallet'}
          </button>
          <button type="button" disabled={!evm || busy !== undefined} onClick={() => signIn('evm')}>
            {busy === 'evm' ? 'Waiting for the wallet…' : 'Sign in with an Ethereum wallet'}
          </button>
        </div>
        {!solana && !evm ? (
          <p class="muted">No wallet found in this browser. Install a Solana or Ethereum wallet extension, then reload this page.</p>
        ) : null}
        <ErrorText text={error} />
      </section>
    </main>
  );
}
