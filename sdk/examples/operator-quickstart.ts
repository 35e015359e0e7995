// Operator: sign in with a Solana wallet, create an agent and a trade key, switch trading on,
// fund the agent's paper wallet. Prints what the agent needs (the key's secret is shown once).
import nacl from 'tweetnacl';
import { naclSigner, OperatorClient } from 'agent-runtime-sdk';

const operator = new OperatorClient({
  baseUrl: process.env.BASE_URL ?? 'http://127.0.0.1:3000',
  // The service's PUBLIC_URL when it differs from where you reach it (wallets sign for its host).
  publicUrl: process.env.PUBLIC_URL,
});

const user = await operator.signInWithSolana(naclSigner(nacl.sign.keyPair()));
console.log(`signed in as ${user.walletAddress}`);

const agent = await operator.agents.create({ name: 'quickstart agent' });
const key = await operator.keys.create(agent.agentId, { name: 'trading runtime', scope: 'trade' });
await operator.agents.setTrading(agent.agentId, { enabled: true });

// Paper venue: a custodial wallet and 100 play USDC for the agent.
await operator.wallets.ensureCustodial({ chain: 'solana' }, { agentId: agent.agentId });
await operator.trading.paperFaucet({ chain: 'solana', token: 'USDC', amount: '100' }, { agentId: agent.agentId });

const { items } = await operator.agents.logs(agent.agentId);
console.log(`agent ${agent.agentId} ready, ${items.length} calls in its audit log`);
console.log(`PUBLIC_ID=${agent.publicId}`);
console.log(`AGENT_KEY=${key.secret}`);
