/**
 * A minimal ERC-8004-style identity registry for tests, deployed on an in-process EVM (EDR).
 * No Solidity compiler is installed here, so the contract is assembled from opcodes below (a
 * dozen instructions, readable, no hidden bytecode): `register(uint256 id)` records the caller
 * as the owner of `id` (refused when taken), `ownerOf(uint256 id)` returns it and reverts for an
 * id nobody registered, as ERC-721 does, and `transfer(uint256 id, address to)` gives `id` to
 * `to` when the caller owns it (ERC-721's transfer, without approvals). The service asks it through viem's `readContract`, a
 * real `eth_call` over JSON-RPC.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPublicClient, createWalletClient, toFunctionSelector, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { EdrChain } from '../adapters/live/support/edr-chain.js';

const OP = {
  STOP: 0x00,
  EQ: 0x14,
  ISZERO: 0x15,
  SHR: 0x1c,
  CALLER: 0x33,
  CALLDATALOAD: 0x35,
  CODECOPY: 0x39,
  MSTORE: 0x52,
  SLOAD: 0x54,
  SSTORE: 0x55,
  JUMPI: 0x57,
  JUMPDEST: 0x5b,
  DUP1: 0x80,
  SWAP1: 0x90,
  RETURN: 0xf3,
  REVERT: 0xfd,
} as const;
type Item = keyof typeof OP | { push: number | Hex; bytes?: number } | { label: string } | { ref: string };

/** Two-pass assembler: labels (JUMPDEST) and 2-byte label references. */
function assemble(items: Item[]): Uint8Array {
  const sizeOf = (item: Item) => (typeof item === 'string' ? 1 : 'label' in item ? 1 : 'ref' in item ? 3 : 1 + (item.bytes ?? 1));
  const labels = new Map<string, number>();
  let at = 0;
  for (const item of items) {
    if (typeof item === 'object' && 'label' in item) labels.set(item.label, at);
    at += sizeOf(item);
  }
  const out: number[] = [];
  for (const item of items) {
    if (typeof item === 'string') out.push(OP[item]);
    else if ('label' in item) out.push(OP.JUMPDEST);
    else if ('ref' in item) out.push(0x61, (labels.get(item.ref)! >> 8) & 0xff, labels.get(item.ref)! & 0xff);
    else {
      const bytes = item.bytes ?? 1;
      const value = BigInt(item.push);
      out.push(0x5f + bytes);
      for (let i = bytes - 1; i >= 0; i--) out.push(Number((value >> BigInt(8 * i)) & 0xffn));
    }
  }
  return Uint8Array.from(out);
}

const OWNER_OF = toFunctionSelector('ownerOf(uint256)');
const REGISTER = toFunctionSelector('register(uint256)');
const TRANSFER = toFunctionSelector('transfer(uint256,address)');

/** Storage slot `id` holds the owner of token `id`. */
const RUNTIME = assemble([
  { push: 0 },
  'CALLDATALOAD',
  { push: 0xe0 },
  'SHR',
  'DUP1',
  { push: OWNER_OF, bytes: 4 },
  'EQ',
  { ref: 'ownerOf' },
  'JUMPI',
  'DUP1',
  { push: REGISTER, bytes: 4 },
  'EQ',
  { ref: 'register' },
  'JUMPI',
  'DUP1',
  { push: TRANSFER, bytes: 4 },
  'EQ',
  { ref: 'transfer' },
  'JUMPI',
  { label: 'revert' },
  { push: 0 },
  'DUP1',
  'REVERT',
  { label: 'ownerOf' },
  { push: 4 },
  'CALLDATALOAD',
  'SLOAD',
  'DUP1',
  'ISZERO',
  { ref: 'revert' },
  'JUMPI',
  { push: 0 },
  'MSTORE',
  { push: 32 },
  { push: 0 },
  'RETURN',
  { label: 'register' },
  { push: 4 },
  'CALLDATALOAD',
  'DUP1',
  'SLOAD',
  { ref: 'revert' },
  'JUMPI',
  'CALLER',
  'SWAP1',
  'SSTORE',
  'STOP',
  // transfer: refused unless the caller owns the id; then slot `id` holds `to`.
  { label: 'transfer' },
  { push: 4 },
  'CALLDATALOAD',
  'DUP1',
  'SLOAD',
  'CALLER',
  'EQ',
  'ISZERO',
  { ref: 'revert' },
  'JUMPI',
  { push: 0x24 },
  'CALLDATALOAD',
  'SWAP1',
  'SSTORE',
  'STOP',
]);

/** Init code: copy the runtime into memory and return it. */
function deployment(): Hex {
  const init = (offset: number) =>
    assemble([{ push: RUNTIME.length }, 'DUP1', { push: offset }, { push: 0 }, 'CODECOPY', { push: 0 }, 'RETURN']);
  const prefix = init(init(0).length);
  return `0x${Buffer.from([...prefix, ...RUNTIME]).toString('hex')}`;
}

export const REGISTRY_ABI = [
  {
    type: 'function',
    name: 'ownerOf',
    stateMutability: 'view',
    inputs: [{ name: 'id', type: 'uint256' }],
    outputs: [{ name: '', type: 'address' }],
  },
  { type: 'function', name: 'register', stateMutability: 'nonpayable', inputs: [{ name: 'id', type: 'uint256' }], outputs: [] },
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'id', type: 'uint256' },
      { name: 'to', type: 'address' },
    ],
    outputs: [],
  },
] as const;

/** Deploys the registry from `deployer` (a funded key); its address. */
export async function deployRegistry(edr: EdrChain, deployerKey: Hex): Promise<Address> {
  const wallet = createWalletClient({ account: privateKeyToAccount(deployerKey), transport: edr.transport });
  const hash = await wallet.sendTransaction({ data: deployment(), chain: null, gas: 200_000n });
  const receipt = await createPublicClient({ transport: edr.transport }).waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error('registry deployment failed');
  return receipt.contractAddress;
}

/** `register(id)` from `ownerKey`: the id's owner is that key's address. */
export async function registerIdentity(edr: EdrChain, registry: Address, ownerKey: Hex, id: bigint): Promise<void> {
  const wallet = createWalletClient({ account: privateKeyToAccount(ownerKey), transport: edr.transport });
  const hash = await wallet.writeContract({
    address: registry,
    abi: REGISTRY_ABI,
    functionName: 'register',
    args: [id],
    chain: null,
    gas: 100_000n,
  });
  const receipt = await createPublicClient({ transport: edr.transport }).waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`register(${id}) reverted`);
}

/** `transfer(id, to)` from `ownerKey`: the identity changes hands on chain. */
export async function transferIdentity(edr: EdrChain, registry: Address, ownerKey: Hex, id: bigint, to: Address): Promise<void> {
  const wallet = createWalletClient({ account: privateKeyToAccount(ownerKey), transport: edr.transport });
  const hash = await wallet.writeContract({
    address: registry,
    abi: REGISTRY_ABI,
    functionName: 'transfer',
    args: [id, to],
    chain: null,
    gas: 100_000n,
  });
  const receipt = await createPublicClient({ transport: edr.transport }).waitForTransactionReceipt({ hash });
  if (receipt.status !== 'success') throw new Error(`transfer(${id}) reverted`);
}

/**
 * EDR behind a real JSON-RPC HTTP endpoint, as the service reaches a chain's RPC. While
 * `emptyCalls` is set, every `eth_call` answers `0x`, as a node without the contract does.
 */
export async function serveRpc(edr: EdrChain): Promise<{ url: string; server: Server; calls: string[]; emptyCalls: boolean }> {
  const calls: string[] = [];
  const node = { url: '', server: undefined as unknown as Server, calls, emptyCalls: false };
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', async () => {
      const request = JSON.parse(body) as { id: number; method: string; params?: unknown };
      calls.push(request.method);
      try {
        const result = node.emptyCalls && request.method === 'eth_call' ? '0x' : await edr.request(request.method, request.params);
        res.setHeader('content-type', 'application/json').end(JSON.stringify({ jsonrpc: '2.0', id: request.id, result }));
      } catch (error) {
        const { code = -32000, message, data } = error as { code?: number; message: string; data?: unknown };
        res
          .setHeader('content-type', 'application/json')
          .end(JSON.stringify({ jsonrpc: '2.0', id: request.id, error: { code, message, data } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  node.server = server;
  node.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return node;
}
