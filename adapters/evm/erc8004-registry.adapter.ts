import { ContractFunctionRevertedError, createPublicClient, getAddress, http, type PublicClient } from 'viem';
import type { AgentRegistryPort, RegistryRef } from '../../kernel/ports/agent-registry.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import { ProviderBreaker, providerUnavailable, type BreakerLogger } from '../resilience/provider-breaker.js';

/** The one function of ERC-721 the onboarding asks. */
const OWNER_OF_ABI = [
  {
    type: 'function',
    name: 'ownerOf',
    stateMutability: 'view',
    inputs: [{ name: 'tokenId', type: 'uint256' }],
    outputs: [{ name: '', type: 'address' }],
  },
] as const;

export interface Erc8004RegistryOptions {
  /** JSON-RPC URL per EIP-155 chain id (`ERC8004_RPC_URLS`). */
  rpcUrls: Record<number, string>;
  /** CAIP-10 registries (`eip155:<chainId>:<address>`) allowed; empty: any registry on a configured chain. */
  allowed: string[];
  timeoutMs: number;
  breaker: { threshold: number; openMs: number; logger?: BreakerLogger };
  clock: ClockPort;
}

/**
 * `ownerOf(agentId)` on ERC-8004 identity registries through viem, one client and one
 * circuit breaker per chain. A call that reverts (a token that was never minted, or burned)
 * means "nobody owns it", a definitive answer that never counts toward the breaker; a timeout,
 * an RPC failure or a call that returns no data at all (`0x`: no contract at that address on
 * this node, a node not synced, the wrong chain) is a 503 and does.
 */
export class Erc8004RegistryAdapter implements AgentRegistryPort {
  private readonly chains = new Map<number, { client: PublicClient; breaker: ProviderBreaker }>();
  private readonly allowed: Set<string>;

  constructor(options: Erc8004RegistryOptions) {
    this.allowed = new Set(options.allowed.map((ref) => ref.toLowerCase()));
    for (const [chainId, url] of Object.entries(options.rpcUrls)) {
      this.chains.set(Number(chainId), {
        client: createPublicClient({ transport: http(url, { timeout: options.timeoutMs, retryCount: 0 }) }),
        breaker: new ProviderBreaker({
          provider: `erc8004:${chainId}`,
          threshold: options.breaker.threshold,
          openMs: options.breaker.openMs,
          ...(options.breaker.logger ? { logger: options.breaker.logger } : {}),
          timeoutMs: options.timeoutMs,
          clock: options.clock,
        }),
      });
    }
  }

  serves(registry: RegistryRef): boolean {
    if (!this.chains.has(registry.chainId)) return false;
    return this.allowed.size === 0 || this.allowed.has(`eip155:${registry.chainId}:${registry.address}`.toLowerCase());
  }

  async ownerOf(registry: RegistryRef, agentId: bigint): Promise<string | null> {
    const chain = this.chains.get(registry.chainId);
    if (!chain || !this.serves(registry)) return null;
    return chain.breaker.execute(async () => {
      try {
        const owner = await chain.client.readContract({
          address: getAddress(registry.address),
          abi: OWNER_OF_ABI,
          functionName: 'ownerOf',
          args: [agentId],
        });
        return /^0x0{40}$/i.test(owner) ? null : getAddress(owner);
      } catch (error) {
        if (isRevert(error)) return null;
        throw providerUnavailable(
          `erc8004:${registry.chainId}`,
          error instanceof Error ? error.message.split('\n')[0]!.slice(0, 120) : 'rpc failed',
          { cause: error },
        );
      }
    });
  }
}

/**
 * JSON-RPC errors that carry an `eth_call` revert, in the shapes nodes send: code 3 `execution
 * reverted` (geth, EIP-1474 era), -32000 `VM Exception while processing transaction: revert`
 * or `execution reverted` (ganache, hardhat, older geth), -32015 `VM execution error`
 * (OpenEthereum, Nethermind). -32000 alone is any server error (`header not found`...), so it
 * counts only with a revert message.
 */
const REVERT_CODES = new Set([3, -32015]);
const REVERT_MESSAGE = /revert|VM Exception/i;

/**
 * A revert: the registry names no owner. Empty return data is not one: it is what a node
 * answers for an address without code, so it says nothing about the identity's owner.
 * viem recognises only some revert shapes, so the RPC error it wraps is read too.
 */
function isRevert(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (current instanceof ContractFunctionRevertedError) return true;
    // viem's errors keep the node's own message in `details`; the node's error object is their `cause`.
    const { code, details, message } = current as { code?: unknown; details?: unknown; message?: unknown };
    const text = typeof details === 'string' ? details : message;
    if (typeof code === 'number' && REVERT_CODES.has(code)) return true;
    if (code === -32000 && typeof text === 'string' && REVERT_MESSAGE.test(text)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
