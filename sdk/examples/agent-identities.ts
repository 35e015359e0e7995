// Three ways for an agent to get an identity token instead of a key; the SDK onboards at the first call.
import { AgentClient, type EvmSigner, providerOnboarding, siweOnboarding } from 'agent-runtime-sdk';

export function agentIdentities(baseUrl: string, publicUrl: string, ownerAccount: EvmSigner, getJwt: () => Promise<string>) {
  // SIWE: the owner's wallet (a viem account) signs; the same wallet always comes back to the same agent.
  const wallet = new AgentClient({ baseUrl, identity: siweOnboarding({ signer: ownerAccount, scope: 'trade', publicUrl }) });
  // SIWA: an ERC-8004 identity the wallet owns on a registry the service reads (ERC8004_RPC_URLS).
  const erc8004 = { agentId: 7n, registry: 'eip155:8453:0x8004a169fb4a3325136eb29fa0ceb6d2e539a432' };
  const registered = new AgentClient({ baseUrl, identity: siweOnboarding({ signer: ownerAccount, scope: 'read', publicUrl, erc8004 }) });
  // A JWT of an identity provider the service is configured with (IDENTITY_PROVIDERS), fresh at each renewal.
  const provided = new AgentClient({ baseUrl, identity: providerOnboarding({ provider: 'acme', providerToken: getJwt, scope: 'read' }) });
  return { wallet, registered, provided };
}
