// Withdrawals are off until the agent's owner claims it and switches them on with a step-up token.
import type { EvmSigner, OperatorClient, SolanaSigner } from 'agent-runtime-sdk';

export async function allowWithdrawals(
  operator: OperatorClient,
  agentId: string,
  ownerWallet: SolanaSigner | EvmSigner,
  totpCode: string,
  recipients: string[],
) {
  await operator.agents.claim(agentId, ownerWallet);
  const { stepUpToken } = await operator.agents.stepUp(agentId, { code: totpCode });
  await operator.agents.setWithdrawSettings(agentId, { enabled: true, allowlist: recipients, dailyCapUsd: 50 }, { stepUpToken });
  return operator.agents.withdrawSettings(agentId); // { enabled, allowlist, dailyCapUsd, requireStepUp }
}
