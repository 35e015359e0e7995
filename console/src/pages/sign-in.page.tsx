/** Sign-in with an injected Solana wallet (SIWS) or an EIP-1193 wallet (SIWE), through the SDK. */
import { CHAINS, type SessionUser } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { ErrorText } from '../components/status.js';
import { TestWalletSignIn } from '../components/test-wallet-sign-in.js';
import { evmSigner, hasEvmWallet, hasSolanaWallet, solanaSigner } from '../wallets.js';

// Chains the service signs EVM operators in on (README, First steps); other chains sign for Ethereum.
const SERVED_EVM_CHAINS: ReadonlySet<number> = new Set(CHAINS.flatMap((entry) => ('evmChainId' in entry ? [entry.evmChainId] : [])));

/** `reason`: why this page asks, when the operator came for something particular (an access request); sign-in keeps the address, so that page follows. */
export function SignInPage({ onSignedIn, reason }: { onSignedIn(user: SessionUser): void; reason?: string }) {
  const signIn = useAction(async (kind: 'solana' | 'evm') => {
    if (kind === 'solana') onSignedIn(await client.signInWithSolana(await solanaSigner()));
    else {
      const signer = await evmSigner();
      onSignedIn(await client.signInWithEthereum(signer, { chainId: SERVED_EVM_CHAINS.has(signer.chainId) ? signer.chainId : 1 }));
    }
  });
  const busy = signIn.running?.[0];

  const solana = hasSolanaWallet();
  const evm = hasEvmWallet();
  return (
    <main id="main" class="sign-in">
      <section class="card narrow" aria-labelledby="sign-in-title">
        <h1 id="sign-in-title">Sign in</h1>
        {reason ? <p class="sign-in-reason">{reason}</p> : null}
        <p>Sign a message with your wallet to manage your agents. Nothing is sent on chain and it costs nothing.</p>
        <div class="stack">
          <button type="button" disabled={!solana || busy !== undefined} onClick={() => signIn.run('solana')}>
            {busy === 'solana' ? 'Waiting for the wallet…' : 'Sign in with a Solana wallet'}
          </button>
          <button type="button" disabled={!evm || busy !== undefined} onClick={() => signIn.run('evm')}>
            {busy === 'evm' ? 'Waiting for the wallet…' : 'Sign in with an Ethereum wallet'}
          </button>
        </div>
        {!solana && !evm ? (
          <p class="muted">No wallet found in this browser. Install a Solana or Ethereum wallet extension, then reload this page.</p>
        ) : null}
        <ErrorText text={signIn.error} />
        <TestWalletSignIn disabled={busy !== undefined} onSignedIn={onSignedIn} />
      </section>
    </main>
  );
}
