/**
 * A chain added by its vocabulary row, its token list and its paper markets: Optimism (EIP-155
 * id 10) is quoted and swapped on the paper venue, and paid out on a live EVM node (EDR behind
 * an HTTP JSON-RPC endpoint) by a withdrawal, all from outside over REST.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { toHex, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdrChain } from '../adapters/live/support/edr-chain.js';
import { newEvmWallet } from '../adapters/live/support/evm-fixtures.js';
import { solanaClaim } from '../support/claim-messages.js';
import { bearer, Operator } from '../support/mcp-fixtures.js';
import { startTestService, type TestService } from '../support/test-service.js';
import { codeAt, stoppedClock } from '../support/totp-codes.js';

const OPTIMISM = 10;
const OP_TOKEN = '0x4200000000000000000000000000000000000042';

describe('Optimism, a chain added in the vocabulary (e2e)', () => {
  describe('paper venue', () => {
    let svc: TestService;
    let operator: Operator;
    beforeAll(async () => {
      svc = await startTestService();
      operator = await Operator.signIn(svc);
    });
    afterAll(() => svc?.stop());

    it('quotes and swaps on Optimism over REST, and books the positions', async () => {
      const http = operator.client;
      const { userId } = operator;
      const agent = await operator.agent('optimism-trader');
      expect((await http.put(`/api/nest/agents/${agent.agentId}/trading`, { enabled: true })).status).toBe(200);
      expect((await http.post(`/api/nest/trading/evm/wallets/${userId}/custodial`, {}, { 'x-idempotency-key': randomUUID() })).status).toBe(
        201,
      );
      expect(await http.post(`/api/nest/trading/paper/faucet/${userId}`, { chain: 'optimism', token: 'ETH', amount: '1' })).toMatchObject({
        status: 200,
        body: { symbol: 'ETH', credited: '1', balance: '1' },
      });

      const quote = await http.post(`/api/nest/trading/evm/quote/${userId}`, {
        chainId: OPTIMISM,
        sellToken: 'ETH',
        buyToken: 'OP',
        sellAmount: '100000000000000000',
      });
      expect(quote).toMatchObject({ status: 200, body: { chainId: OPTIMISM, sellAmount: '100000000000000000', venue: 'paper' } });
      expect(BigInt(quote.body.buyAmount)).toBeGreaterThan(0n);

      const swap = await http.post(
        `/api/nest/trading/evm/swap/${userId}`,
        { chainId: OPTIMISM, sellToken: 'ETH', buyToken: 'OP', sellAmount: '100000000000000000' },
        { 'x-idempotency-key': randomUUID() },
      );
      expect(swap).toMatchObject({ status: 200, body: { status: 'filled', chain: 'optimism', outputSymbol: 'OP' } });
      expect(swap.body.outputMint.toLowerCase()).toBe(OP_TOKEN);

      const positions = (await http.get(`/api/nest/trading/positions/${userId}/pnl`)).body.positions as Array<{
        chain: string;
        symbol: string;
      }>;
      expect(
        positions
          .filter((p) => p.chain === 'optimism')
          .map((p) => p.symbol)
          .sort(),
      ).toEqual(['ETH', 'OP']);

      // An unknown chain id is still refused, naming the new one among those served.
      const unknown = await http.post(`/api/nest/trading/evm/quote/${userId}`, {
        chainId: 137,
        sellToken: 'ETH',
        buyToken: 'OP',
        sellAmount: '1',
      });
      expect(unknown.status).toBe(400);
      expect(JSON.stringify(unknown.body)).toContain('10');
    }, 60_000);
  });

  describe('live withdrawal on EDR', () => {
    let edr: EdrChain;
    let rpcServer: Server;
    let svc: TestService;
    beforeAll(async () => {
      edr = await EdrChain.start({ chainId: OPTIMISM, funded: [] });
      rpcServer = createServer(async (req, res) => {
        const chunks: Buffer[] = [];
        for await (const chunk of req) chunks.push(chunk as Buffer);
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const one = async (call: { id: number; method: string; params?: unknown }) => {
          try {
            return { jsonrpc: '2.0', id: call.id, result: await edr.request(call.method, call.params) };
          } catch (error) {
            const { code, message } = error as { code?: number; message: string };
            return { jsonrpc: '2.0', id: call.id, error: { code: code ?? -32603, message } };
          }
        };
        const answer = Array.isArray(body) ? await Promise.all(body.map(one)) : await one(body);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
      await new Promise<void>((resolve) => rpcServer.listen(0, '127.0.0.1', resolve));
      const url = `http://127.0.0.1:${(rpcServer.address() as AddressInfo).port}`;
      svc = await startTestService({ env: { TRADING_VENUE: 'live', EVM_CHAIN_RPC_URLS: `optimism=${url}` } });
    });
    afterAll(async () => {
      await svc?.stop();
      rpcServer?.closeAllConnections();
      await new Promise<void>((resolve) => (rpcServer ? rpcServer.close(() => resolve()) : resolve()));
    });

    it('withdraws ETH on Optimism (chain id 10): confirmed, and the chain shows the transfer', async () => {
      const owner = await Operator.signIn(svc);
      const { agentId } = await owner.agent('optimism-payer');
      const tradeKey = (await owner.agentKey(agentId, 'trade')).secret;
      const wallet = await owner.client.post(
        `/api/nest/trading/evm/wallets/${owner.userId}/custodial?agentId=${agentId}`,
        {},
        { 'x-idempotency-key': randomUUID() },
      );
      expect(wallet.status).toBe(201);
      const address = wallet.body.address as Address;
      await edr.request('hardhat_setBalance', [address, toHex(10n ** 18n)]);
      expect(
        (await owner.client.post(`/api/nest/agents/${agentId}/control/claim`, await solanaClaim(owner.client, owner.wallet, agentId)))
          .status,
      ).toBe(200);
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

      const to = newEvmWallet().address;
      const answer = await fetch(`${svc.url}/api/nest/agents/wallet/withdraw/evm`, {
        method: 'POST',
        headers: { ...bearer(tradeKey), 'content-type': 'application/json', 'x-idempotency-key': randomUUID() },
        body: JSON.stringify({ chainId: OPTIMISM, token: 'ETH', amount: (10n ** 15n).toString(), to }),
      });
      const body = (await answer.json()) as { status: string; txHash: Hex; from: string; to: string };
      expect({ status: answer.status, body }).toMatchObject({ status: 201, body: { status: 'confirmed', from: address, to } });
      expect(BigInt((await edr.request('eth_getBalance', [to, 'latest'])) as Hex)).toBe(10n ** 15n);
      const tx = (await edr.request('eth_getTransactionByHash', [body.txHash])) as { chainId: Hex };
      expect(Number(BigInt(tx.chainId))).toBe(OPTIMISM);
    }, 60_000);
  });
});
