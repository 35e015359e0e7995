/**
 * ERC-8004 identity registries (ERC-721 contracts, one per chain): who owns an agent identity.
 * Implemented by `adapters/evm/erc8004-registry.adapter.ts` over each chain's configured RPC.
 */

/** A registry as CAIP-10 names it: `eip155:<chainId>:<address>`. */
export interface RegistryRef {
  chainId: number;
  /** 0x address, any casing. */
  address: string;
}

export interface AgentRegistryPort {
  /** True when the service can ask this registry (an RPC for its chain, and the registry allowed). */
  serves(registry: RegistryRef): boolean;
  /**
   * The owner (`ownerOf(agentId)`, EIP-55 checksummed) of an identity, or null when the token does not
   * exist. Throws a 503 AppError when the chain cannot be asked (timeout, RPC down, circuit open).
   */
  ownerOf(registry: RegistryRef, agentId: bigint): Promise<string | null>;
}
