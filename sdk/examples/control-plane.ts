// Control plane: claim an agent with its owner wallet, then cap its credentials' scope and rotate its
// keys; each change takes a fresh step-up token (a TOTP code of your authenticator app, single use).
import type { EvmSigner, OperatorClient, SolanaSigner } from 'agent-runtime-sdk';

export async function claimCapAndRotate(
  operator: OperatorClient,
  agentId: string,
  ownerWallet: SolanaSigner | EvmSigner,
  nextTotpCode: () => Promise<string>,
) {
  const claim = await operator.agents.claim(agentId, ownerWallet); // { agentId, claimed: true, claimedBy, claimedAt }
  const stepUp = async () => (await operator.agents.stepUp(agentId, { code: await nextTotpCode() })).stepUpToken;
  await operator.agents.setScopes(agentId, { maxScope: 'read' }, { stepUpToken: await stepUp() });
  const { keys } = await operator.agents.rotateKeys(agentId, { graceSeconds: 300 }, { stepUpToken: await stepUp() });
  // keys[i].secret: each new key's secret, shown once; keys[i].replaces, keys[i].replacedExpiresAt
  return { claim, keys };
}
