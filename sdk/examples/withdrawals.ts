// The agent's custodial wallets: its balances, and withdrawals (the owner switches them on first).
import type { AgentClient } from 'agent-runtime-sdk';

export async function balanceAndWithdraw(agent: AgentClient, solanaRecipient: string, evmRecipient: string) {
  const { wallets } = await agent.walletBalance(); // [{ chain, address, tokens: [{ mint?, symbol, amount (base units), decimals, valueUsd }] }]
  const solana = await agent.withdrawSolana({ mint: 'USDC', amount: '2000000', to: solanaRecipient });
  const evm = await agent.withdrawEvm({ chainId: 8453, token: 'USDC', amount: '1000000', to: evmRecipient });
  return { wallets, withdrawals: [solana, evm] }; // each { withdrawalId, status: 'confirmed', txHash, … }
}
