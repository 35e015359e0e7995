/**
 * "How it is tested": SIGKILL between persist and broadcast, and between broadcast
 * and confirmation. The service runs as a child process on the live venue with one EVM chain
 * (`base`) whose RPC is a JSON-RPC proxy served by this test in front of EDR. The proxy kills
 * the child when the withdrawal's raw transaction reaches it: (a) before forwarding it (signed
 * bytes persisted, nothing broadcast), (b) after EDR took and mined it, before the child hears
 * back (broadcast, never confirmed by the child). A new child on the same DATA_DIR, and the
 * client retrying with the same idempotency key, end the withdrawal `confirmed` exactly once:
 * the recipient gained the amount once, the sender's nonce advanced by one.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { toHex, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdrChain } from '../adapters/live/support/edr-chain.js';
import { newEvmWallet } from '../adapters/live/support/evm-fixtures.js';
import { solanaClaim } from '../support/claim-messages.js';
import { bearer, Operator } from '../support/mcp-fixtures.js';
import { ServiceProcess } from '../support/service-process.js';
import { PUBLIC_URL } from '../support/test-service.js';
import { codeAt, stoppedClock } from '../support/totp-codes.js';

const BASE_CHAIN_ID = 8453;
const FUNDS = 10n ** 18n;
const AMOUNT = 10n ** 15n;
/** Longest the client retries one key after the restart (a key leased by the dead process frees after its lease). */
const RETRY_DEADLINE_MS = 60_000;

type KillPoint = 'before-forward' | 'after-forward';

/**
 * An HTTP JSON-RPC endpoint in front of EDR that can SIGKILL the service child at the
 * withdrawal's raw transaction. Counts every `eth_sendRawTransaction` it was asked.
 */
class KillingRpcProxy {
  readonly sendRawSeen: Hex[] = [];
  /** Armed: the next raw transaction kills `victim` at this point. */
  armed: { at: KillPoint; victim: ServiceProcess } | undefined;
  private constructor(
    private readonly server: Server,
    readonly edr: EdrChain,
  ) {}

  static async start(edr: EdrChain): Promise<KillingRpcProxy> {
    const server = createServer();
    const proxy = new KillingRpcProxy(server, edr);
    server.on('request', (req, res) => void proxy.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return proxy;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcRequest | RpcRequest[];
    const calls = Array.isArray(body) ? body : [body];
    const answers: unknown[] = [];
    for (const call of calls) {
      const kill = call.method === 'eth_sendRawTransaction' ? this.armed : undefined;
      if (call.method === 'eth_sendRawTransaction') this.sendRawSeen.push((call.params as [Hex])[0]);
      if (kill?.at === 'before-forward') return this.killThenDrop(kill.victim, res);
      answers.push(await this.forward(call));
      if (kill?.at === 'after-forward') return this.killThenDrop(kill.victim, res);
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
  }

  private async forward(call: RpcRequest): Promise<unknown> {
    try {
      return { jsonrpc: '2.0', id: call.id, result: await this.edr.request(call.method, call.params) };
    } catch (error) {
      const { code, message, data } = error as { code?: number; message: string; data?: unknown };
      return { jsonrpc: '2.0', id: call.id, error: { code: code ?? -32603, message, ...(data === undefined ? {} : { data }) } };
    }
  }

  /** SIGKILL, and only then drop the connection: the child never hears what became of its call. */
  private async killThenDrop(victim: ServiceProcess, res: ServerResponse): Promise<void> {
    this.armed = undefined;
    await victim.kill();
    res.destroy();
  }
}

interface RpcRequest {
  jsonrpc: '2.0';
  id: number | string;
  method: string;
  params?: unknown;
}

describe('withdrawal crash recovery (SIGKILL around the broadcast, live EVM chain on EDR)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'withdrawal-crash-'));
  const children: ServiceProcess[] = [];
  let edr: EdrChain;
  let proxy: KillingRpcProxy;
  const start = async () => {
    const child = await ServiceProcess.start({
      DATA_DIR: dataDir,
      PUBLIC_URL,
      TRADING_VENUE: 'live',
      EVM_CHAIN_RPC_URLS: `base=${proxy.url}`,
    });
    children.push(child);
    return child;
  };
  const rpc = <T>(method: string, params: unknown[]) => edr.request(method, params) as Promise<T>;
  const balanceOf = async (address: string) => BigInt(await rpc<Hex>('eth_getBalance', [address, 'latest']));
  const nonceOf = async (address: string) => Number(BigInt(await rpc<Hex>('eth_getTransactionCount', [address, 'latest'])));

  beforeAll(async () => {
    edr = await EdrChain.start({ chainId: BASE_CHAIN_ID, funded: [] });
    proxy = await KillingRpcProxy.start(edr);
  });

  afterAll(async () => {
    // Even on failure: no child outlives the test, and the data dir goes.
    await Promise.all(children.filter((c) => c.child.exitCode === null && c.child.signalCode === null).map((c) => c.kill()));
    await proxy?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** An operator's agent with a funded custodial EVM wallet, withdrawals on (claim + step-up), and its trade key. */
  async function fundedAgent(child: ServiceProcess, name: string) {
    const owner = await Operator.signIn(child);
    const { agentId } = await owner.agent(name);
    const tradeKey = (await owner.agentKey(agentId, 'trade')).secret;
    const wallet = await owner.client.post(
      `/api/nest/trading/evm/wallets/${owner.userId}/custodial?agentId=${agentId}`,
      {},
      { 'x-idempotency-key': randomUUID() },
    );
    expect(wallet.status).toBe(201);
    const address = wallet.body.address as Address;
    await rpc('hardhat_setBalance', [address, toHex(FUNDS)]);
    const claimed = await owner.client.post(
      `/api/nest/agents/${agentId}/control/claim`,
      await solanaClaim(owner.client, owner.wallet, agentId),
    );
    expect(claimed.status).toBe(200);
    // TOTP: activation takes this step's code, the step-up the next one (each code works once).
    const clock = stoppedClock();
    const secret = (await owner.client.post('/api/nest/auth/totp/enroll')).body.secret as string;
    expect((await owner.client.post('/api/nest/auth/totp/activate', { code: await codeAt(secret, clock, 0) })).status).toBe(200);
    const stepUp = await owner.client.post(`/api/nest/agents/${agentId}/control/mcp/step-up`, { code: await codeAt(secret, clock, 1) });
    expect(stepUp.status).toBe(200);
    const set = await owner.client.request(
      'PUT',
      `/api/nest/agents/${agentId}/control/withdraw`,
      { enabled: true },
      { 'x-step-up-token': stepUp.body.stepUpToken },
    );
    expect(set.status).toBe(200);
    return { tradeKey, address };
  }

  const withdraw = (child: ServiceProcess, key: string, to: string, idempotencyKey: string) =>
    fetch(`${child.url}/api/nest/agents/wallet/withdraw/evm`, {
      method: 'POST',
      headers: { ...bearer(key), 'content-type': 'application/json', 'x-idempotency-key': idempotencyKey },
      body: JSON.stringify({ chainId: BASE_CHAIN_ID, token: 'ETH', amount: AMOUNT.toString(), to }),
    }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as any }));

  /** The client's retry with the same key and body until a final answer (a key the dead process leased answers 409 for a while). */
  async function untilFinal(child: ServiceProcess, key: string, to: string, idempotencyKey: string) {
    const started = Date.now();
    for (;;) {
      const answer = await withdraw(child, key, to, idempotencyKey);
      if (![409, 429, 503].includes(answer.status)) return answer;
      if (Date.now() - started > RETRY_DEADLINE_MS)
        throw new Error(`still ${answer.status} after ${RETRY_DEADLINE_MS} ms: ${JSON.stringify(answer.body)}`);
      await sleep(Math.max(500, (Number(answer.headers.get('retry-after')) || 1) * 1000));
    }
  }

  for (const [at, what] of [
    ['before-forward', 'between persist and broadcast'],
    ['after-forward', 'between broadcast and confirmation'],
  ] as const) {
    it(`SIGKILL ${what}: after the restart the withdrawal is confirmed once, the chain shows one transfer`, async () => {
      // A case that failed may have left its child running on the data dir.
      await Promise.all(children.filter((c) => c.child.exitCode === null && c.child.signalCode === null).map((c) => c.kill()));
      const first = await start();
      const { tradeKey, address } = await fundedAgent(first, `crash-${at}`);
      const to = newEvmWallet().address;
      const idempotencyKey = randomUUID();
      const sendsBefore = proxy.sendRawSeen.length;

      proxy.armed = { at, victim: first };
      // The call dies with its process: the client sees the connection drop.
      await expect(withdraw(first, tradeKey, to, idempotencyKey)).rejects.toThrow();
      // Its sockets close with it, so the client may hear before the parent sees the exit.
      await first.exited;
      expect(first.child.signalCode).toBe('SIGKILL');
      expect(proxy.armed).toBeUndefined();
      // (a) nothing reached the chain; (b) the transfer is mined, and the dead child never learnt it.
      expect(await nonceOf(address)).toBe(at === 'before-forward' ? 0 : 1);

      const second = await start();
      const answer = await untilFinal(second, tradeKey, to, idempotencyKey);
      expect(answer).toMatchObject({ status: 201, body: { status: 'confirmed', from: address, to } });
      const txHash = answer.body.txHash as Hex;

      // Exactly one transfer: the recipient gained the amount once, the sender used one nonce
      // and paid the amount plus that one transaction's fee.
      expect(await balanceOf(to)).toBe(AMOUNT);
      expect(await nonceOf(address)).toBe(1);
      const receipt = await rpc<{ status: Hex; gasUsed: Hex; effectiveGasPrice: Hex; from: string }>('eth_getTransactionReceipt', [txHash]);
      expect(receipt).toMatchObject({ status: '0x1', from: address.toLowerCase() });
      expect(await balanceOf(address)).toBe(FUNDS - AMOUNT - BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice));
      // One signed transaction ever: every raw send of this withdrawal carried the same bytes.
      const sends = proxy.sendRawSeen.slice(sendsBefore);
      expect(new Set(sends).size).toBe(1);
      expect(edr.broadcasts.filter((hash) => hash === txHash)).toHaveLength(1);

      // A second retry answers the same confirmed withdrawal and sends nothing.
      const replay = await untilFinal(second, tradeKey, to, idempotencyKey);
      expect(replay).toMatchObject({ status: 201, body: { withdrawalId: answer.body.withdrawalId, status: 'confirmed', txHash } });
      expect(await balanceOf(to)).toBe(AMOUNT);
      await second.stop();
    }, 120_000);
  }
});
