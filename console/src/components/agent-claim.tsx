import { useState } from 'preact/hooks';
import type { AgentControlClaimOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { evmSigner, solanaSigner } from '../wallets.js';
import { ErrorText } from './status.js';

/** The claim signs a fresh sign-in message naming the agent with the wallet the operator signed in with. */
export function AgentClaim({ agentId }: { agentId: string }) {
  const [claim, setClaim] = useState<AgentControlClaimOutput | undefined>(undefined);
  const run = useAction(async () => {
    const evm = client.user.walletAddress.startsWith('0x');
    const signer = evm ? await evmSigner() : await solanaSigner();
    if (signer.address.toLowerCase() !== client.user.walletAddress.toLowerCase())
      throw new Error(
        `Your wallet now uses ${signer.address}; switch it back to ${client.user.walletAddress}, the one you signed in with.`,
      );
    setClaim(await client.agents.claim(agentId, signer, evm && 'chainId' in signer ? { chainId: signer.chainId } : {}));
  });
  return (
    <div>
      <h3>Claim</h3>
      <p class="muted small">Proves with your wallet's signature that you control this agent; again later, it verifies the claim.</p>
      <button type="button" disabled={run.busy} onClick={() => void run.run()}>
        {run.busy ? 'Waiting for your wallet…' : 'Claim with my wallet'}
      </button>
      <div aria-live="polite">
        {claim ? <p data-testid="claim-status">Claimed by you on {new Date(claim.claimedAt).toLocaleString()}.</p> : null}
      </div>
      <ErrorText text={run.error} />
    </div>
  );
}
