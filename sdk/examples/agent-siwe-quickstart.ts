// Agent without an API key: onboard with the owner's Ethereum wallet (SIWE, ERC-8004), list the
// tools its identity token allows, read its portfolio and wallet, and read its event stream.
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { AgentClient, siweOnboarding } from 'agent-runtime-sdk';

const baseUrl = process.env.BASE_URL ?? 'http://127.0.0.1:3000';
// The owner's wallet: any viem account (a key from the environment here, or a fresh one).
const owner = privateKeyToAccount((process.env.OWNER_KEY as `0x${string}` | undefined) ?? generatePrivateKey());

const agent = new AgentClient({
  baseUrl,
  // The service's PUBLIC_URL: its host is the domain the wallet signs for.
  identity: siweOnboarding({ signer: owner, scope: 'trade', publicUrl: process.env.PUBLIC_URL ?? baseUrl }),
});

// The first call onboards: the same wallet always comes back to the same agent.
const tools = await agent.listTools();
const token = agent.identityToken!.identity!;
console.log(`agent ${token.agentId} (${token.publicId}) of ${owner.address}: ${tools.length} tools with a ${token.scope} token`);
console.log(`the token lives ${token.expiresIn} s; the SDK renews it at ${new Date(agent.identityToken!.renewAt!).toISOString()}`);

const summary = await agent.callTool('trading_portfolio_summary', {});
console.log(`portfolio: ${JSON.stringify(summary).slice(0, 120)}`);
const { wallets } = await agent.walletBalance();
console.log(`${wallets.length} custodial wallets`);

// The stream from its start: the agent's first event, then stop.
const events = agent.subscribe({ lastEventId: 0 });
for await (const event of events) {
  console.log(`event ${event.id} ${event.event}`);
  break;
}
events.close();
