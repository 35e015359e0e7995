/**
 * A registry's "no" is an answer, not an outage: `ownerOf` of an unminted id reverts, and
 * nodes report that revert in several shapes (ganache/hardhat `-32000 VM Exception while
 * processing transaction: revert`, OpenEthereum/Nethermind `-32015`, geth's code 3 `execution
 * reverted`). Each is a definitive 401 that never counts toward the registry's circuit
 * breaker: after 20 unminted ids in a row the real owner still onboards at once. Tiny fake
 * JSON-RPC servers answer in each shape.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeFunctionData, encodeAbiParameters } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRY_ABI } from '../support/erc721-registry.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';

const REGISTRY = '0x8004000000000000000000000000000000008004';
const MINTED = 1n;
const owner = evmWallet();

/** How each node reports a reverted `eth_call`. */
const SHAPES = {
  ganache: { chainId: 1337, error: { code: -32000, message: 'VM Exception while processing transaction: revert' } },
  openethereum: { chainId: 1338, error: { code: -32015, message: 'VM execution error.', data: 'Reverted 0x' } },
  geth: { chainId: 1339, error: { code: 3, message: 'execution reverted', data: '0x' } },
} as const;

/** A JSON-RPC node whose registry knows one minted id (the owner's) and reverts `ownerOf` for every other. */
async function fakeNode(revert: { code: number; message: string; data?: string }): Promise<{ url: string; server: Server; calls: number }> {
  const node = { url: '', server: undefined as unknown as Server, calls: 0 };
  node.server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const request = JSON.parse(body) as { id: number; method: string; params: [{ data: `0x${string}` }] };
      node.calls++;
      const reply = (payload: object) =>
        res.setHeader('content-type', 'application/json').end(JSON.stringify({ jsonrpc: '2.0', id: request.id, ...payload }));
      if (request.method !== 'eth_call') return reply({ error: { code: -32601, message: 'method not found' } });
      const { args } = decodeFunctionData({ abi: REGISTRY_ABI, data: request.params[0].data });
      if (args[0] === MINTED) return reply({ result: encodeAbiParameters([{ type: 'address' }], [owner.address]) });
      return reply({ error: revert });
    });
  });
  await new Promise<void>((resolve) => node.server.listen(0, '127.0.0.1', () => resolve()));
  node.url = `http://127.0.0.1:${(node.server.address() as AddressInfo).port}`;
  return node;
}

let svc: TestService;
let client: Client;
const nodes = new Map<keyof typeof SHAPES, Awaited<ReturnType<typeof fakeNode>>>();

beforeAll(async () => {
  for (const [name, shape] of Object.entries(SHAPES) as Array<[keyof typeof SHAPES, (typeof SHAPES)[keyof typeof SHAPES]]>)
    nodes.set(name, await fakeNode(shape.error));
  const urls = [...nodes].map(([name, node]) => `${SHAPES[name].chainId}=${node.url}`).join(',');
  // The interface's breaker: 5 consecutive failures open it for 60 s.
  svc = await startTestService({ env: { ERC8004_RPC_URLS: urls, CIRCUIT_BREAKER_THRESHOLD: '5', CIRCUIT_BREAKER_OPEN_MS: '60000' } });
  client = new Client(svc.url);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  for (const node of nodes.values()) await new Promise<void>((resolve) => node.server.close(() => resolve()));
});

async function onboardSiwa(chainId: number, id: bigint) {
  const { body } = await client.post('/api/nest/auth/evm/nonce', {});
  const message = owner
    .message(body.nonce, new Date(), { chainId })
    .replace('\nVersion: 1\n', `\nVersion: 1\nAgent ID: ${id}\nAgent Registry: eip155:${chainId}:${REGISTRY}\n`);
  return client.post('/api/public/erc8004/onboarding/siwe', { message, signature: await owner.sign(message), scope: 'read' });
}

describe('registry reverts are refusals, not outages', () => {
  for (const [name, shape] of Object.entries(SHAPES) as Array<[keyof typeof SHAPES, (typeof SHAPES)[keyof typeof SHAPES]]>) {
    const count = name === 'ganache' ? 20 : 6;
    it(`${name} (${shape.error.code}): ${count} unminted ids in a row are each 401, then the owner gets 201 at once`, async () => {
      const node = nodes.get(name)!;
      for (let id = 100n; id < 100n + BigInt(count); id++) {
        const refused = await onboardSiwa(shape.chainId, id);
        expect(refused).toMatchObject({ status: 401, body: { message: 'Unauthorized' } });
      }
      const callsBefore = node.calls;
      const onboarded = await onboardSiwa(shape.chainId, MINTED);
      expect(onboarded).toMatchObject({ status: 201, body: { verified: true } });
      // The registry was asked: no open breaker answered for it.
      expect(node.calls).toBeGreaterThan(callsBefore);
    });
  }
});
