import type { Client, evmWallet, solanaWallet } from './test-service.js';

/**
 * Signed claims (`control/claim`) as a wallet would make them: a fresh nonce of the sign-in
 * routes, the sign-in message with a statement naming the agent.
 */
export async function solanaClaim(
  client: Client,
  wallet: ReturnType<typeof solanaWallet>,
  agentId: string,
  statement = `Claim agent ${agentId}`,
) {
  const { body } = await client.post('/api/nest/auth/nonce', { walletAddress: wallet.address });
  const message = (body.message as string).replace('Sign in to the agent service', statement);
  return { message, signature: wallet.sign(message) };
}

export async function evmClaim(
  client: Client,
  wallet: ReturnType<typeof evmWallet>,
  agentId: string,
  now = new Date(),
  statement = `Claim agent ${agentId}`,
) {
  const { body } = await client.post('/api/nest/auth/evm/nonce', {});
  const message = wallet.message(body.nonce as string, now, { statement });
  return { message, signature: await wallet.sign(message) };
}
