/**
 * First steps against a running service, as the README walks them: sign in with a Solana
 * wallet (SIWS) and with an EVM wallet (SIWE), create an agent and a trade key, switch
 * trading on, trade on the paper venue over MCP with the key, pause and resume the agent.
 *
 *   npx tsx examples/first-steps.ts                       # against http://127.0.0.1:3000
 *   BASE_URL=http://127.0.0.1:4000 npx tsx examples/first-steps.ts
 *
 * `PUBLIC_URL` must be what the service was started with (its host is the domain the
 * wallets sign for); it defaults to `BASE_URL`, as the service's own default does.
 * The wallets are throwaway keys made here; a real client asks the user's wallet to sign.
 */
import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import nacl from 'tweetnacl';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createSiweMessage } from 'viem/siwe';

const BASE_URL = (process.env.BASE_URL ?? 'http://127.0.0.1:3000').replace(/\/$/, '');
const PUBLIC_URL = (process.env.PUBLIC_URL ?? BASE_URL).replace(/\/$/, '');

/** A browser-like client: keeps the pre-login CSRF cookie, sends the bearer and CSRF headers. */
class Session {
  private cookie = '';
  bearer = '';
  csrf = '';

  async call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<any> {
    const response = await fetch(`${BASE_URL}${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.bearer ? { authorization: `Bearer ${this.bearer}` } : {}),
        ...(this.csrf && method !== 'GET' ? { 'x-csrf-token': this.csrf } : {}),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const setCookie = response.headers.getSetCookie().map((c) => c.split(';')[0]);
    if (setCookie.length > 0) this.cookie = setCookie.join('; ');
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status} ${text}`);
    return parsed;
  }

  /** Step 1 of every sign-in: a CSRF token bound to an HttpOnly cookie (after login: to the session). */
  async fetchCsrf(): Promise<void> {
    this.csrf = (await this.call('GET', '/api/nest/auth/csrf')).csrfToken;
  }
}

/** Solana: the service hands out the exact SIWS text to sign. */
async function signInWithSolana(session: Session): Promise<{ id: string; walletAddress: string }> {
  const keys = nacl.sign.keyPair();
  const walletAddress = bs58.encode(keys.publicKey);
  await session.fetchCsrf();
  const { message } = await session.call('POST', '/api/nest/auth/nonce', { walletAddress });
  const signature = bs58.encode(nacl.sign.detached(new TextEncoder().encode(message), keys.secretKey));
  const login = await session.call('POST', '/api/nest/auth/login', { message, signature, walletAddress });
  session.bearer = login.accessToken;
  await session.fetchCsrf();
  return login.user;
}

/** EVM: the client builds the EIP-4361 message around the service's nonce. */
async function signInWithEthereum(session: Session): Promise<{ id: string; walletAddress: string }> {
  const account = privateKeyToAccount(generatePrivateKey());
  await session.fetchCsrf();
  const { nonce } = await session.call('POST', '/api/nest/auth/evm/nonce', { walletAddress: account.address });
  const message = createSiweMessage({
    domain: new URL(PUBLIC_URL).host,
    address: account.address,
    uri: PUBLIC_URL,
    version: '1',
    chainId: 1,
    nonce,
    issuedAt: new Date(),
  });
  const signature = await account.signMessage({ message });
  const login = await session.call('POST', '/api/nest/auth/evm/login', { message, signature });
  session.bearer = login.accessToken;
  await session.fetchCsrf();
  return login.user;
}

/** One MCP tool call with an agent key (no session, no CSRF). */
async function callTool(publicId: string, key: string, name: string, args: Record<string, unknown>): Promise<any> {
  const response = await fetch(`${BASE_URL}/mcp/${publicId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: randomUUID(), method: 'tools/call', params: { name, arguments: args } }),
  });
  const reply = (await response.json()) as { result?: { content: Array<{ text: string }>; isError: boolean }; error?: unknown };
  if (!reply.result || reply.result.isError) throw new Error(`${name} failed: ${JSON.stringify(reply)}`);
  return JSON.parse(reply.result.content[0]!.text);
}

async function main(): Promise<void> {
  const evmUser = await signInWithEthereum(new Session());
  console.log(`signed in with an EVM wallet as ${evmUser.walletAddress} (user ${evmUser.id})`);

  const operator = new Session();
  const { id: userId, walletAddress } = await signInWithSolana(operator);
  console.log(`signed in with a Solana wallet as ${walletAddress} (user ${userId})`);

  const agent = await operator.call('POST', '/api/nest/agents', { name: 'first agent' });
  console.log(`created agent ${agent.agentId} (publicId ${agent.publicId})`);

  const key = await operator.call('POST', `/api/nest/agents/${agent.agentId}/keys`, { name: 'trading runtime', scope: 'trade' });
  console.log(`created a trade key ${key.prefix}… (the secret is shown once)`);

  await operator.call('PUT', `/api/nest/agents/${agent.agentId}/trading`, { enabled: true });
  console.log('switched trading on');

  // Paper venue: a custodial wallet, play money from the faucet, one swap with the key.
  await operator.call('POST', `/api/nest/trading/wallets/custodial/${userId}`, {}, { 'x-idempotency-key': randomUUID() });
  await operator.call('POST', `/api/nest/trading/paper/faucet/${userId}`, { chain: 'solana', token: 'USDC', amount: '100' });
  const order = await callTool(agent.publicId, key.secret, 'trading_solana_aggregator_swap', {
    inputMint: 'USDC',
    outputMint: 'SOL',
    amount: '10000000',
    idempotencyKey: randomUUID(),
  });
  console.log(`swapped 10 USDC to SOL over MCP: order ${order.order_id} ${order.status}`);

  await operator.call('POST', `/api/nest/agents/${agent.agentId}/pause`, {});
  console.log(`paused the agent: ${(await operator.call('GET', `/api/nest/agents/${agent.agentId}`)).status}`);
  await operator.call('POST', `/api/nest/agents/${agent.agentId}/resume`, {});
  console.log(`resumed the agent: ${(await operator.call('GET', `/api/nest/agents/${agent.agentId}`)).status}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
