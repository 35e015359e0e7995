import { createPublicClient, http } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../support/manual-clock.adapter.js';
import { Erc8004RegistryAdapter } from '../../adapters/evm/erc8004-registry.adapter.js';
import { EdrChain } from '../adapters/live/support/edr-chain.js';
import { deployRegistry, REGISTRY_ABI, registerIdentity, serveRpc, transferIdentity } from '../support/erc721-registry.js';

describe('the hand-assembled ERC-721 registry on EDR, through the registry adapter', async () => {
  const owner = generatePrivateKey();
  const other = generatePrivateKey();
  const edr = await EdrChain.start({
    chainId: 31337,
    revertingCalls: true,
    funded: [owner, other].map((key) => ({ address: privateKeyToAccount(key).address, wei: 10n ** 20n })),
  });
  const registry = await deployRegistry(edr, owner);
  await registerIdentity(edr, registry, owner, 1n);
  const rpc = await serveRpc(edr);
  afterAll(() => new Promise<void>((resolve) => rpc.server.close(() => resolve())));
  const adapter = (allowed: string[] = []) =>
    new Erc8004RegistryAdapter({
      rpcUrls: { 31337: rpc.url },
      allowed,
      timeoutMs: 2_000,
      breaker: { threshold: 5, openMs: 60_000 },
      clock: new ManualClock(),
    });

  it('ownerOf answers the registering address; an unregistered id reverts (null); a taken id cannot be registered again', async () => {
    const client = createPublicClient({ transport: http(rpc.url) });
    expect(await client.readContract({ address: registry, abi: REGISTRY_ABI, functionName: 'ownerOf', args: [1n] })).toBe(
      privateKeyToAccount(owner).address,
    );
    expect(await adapter().ownerOf({ chainId: 31337, address: registry }, 1n)).toBe(privateKeyToAccount(owner).address);
    expect(await adapter().ownerOf({ chainId: 31337, address: registry }, 2n)).toBeNull();
    await expect(registerIdentity(edr, registry, other, 1n)).rejects.toThrow();
    expect(rpc.calls).toContain('eth_call');
  });

  it('transfer: only the owner gives an id away; ownerOf then answers the new owner', async () => {
    await registerIdentity(edr, registry, owner, 3n);
    const ref = { chainId: 31337, address: registry };
    await expect(transferIdentity(edr, registry, other, 3n, privateKeyToAccount(other).address)).rejects.toThrow();
    expect(await adapter().ownerOf(ref, 3n)).toBe(privateKeyToAccount(owner).address);
    await transferIdentity(edr, registry, owner, 3n, privateKeyToAccount(other).address);
    expect(await adapter().ownerOf(ref, 3n)).toBe(privateKeyToAccount(other).address);
  });

  it('serves only configured chains and, when an allowlist is set, only its registries', () => {
    expect(adapter().serves({ chainId: 31337, address: registry })).toBe(true);
    expect(adapter().serves({ chainId: 1, address: registry })).toBe(false);
    expect(adapter([`eip155:31337:${registry}`]).serves({ chainId: 31337, address: registry.toLowerCase() })).toBe(true);
    expect(adapter(['eip155:31337:0x0000000000000000000000000000000000000001']).serves({ chainId: 31337, address: registry })).toBe(false);
  });

  it('an eth_call answered with no data (`0x`: no contract there) is a 503, not "nobody owns it"', async () => {
    rpc.emptyCalls = true;
    try {
      await expect(adapter().ownerOf({ chainId: 31337, address: registry }, 1n)).rejects.toMatchObject({ kind: 'unavailable' });
    } finally {
      rpc.emptyCalls = false;
    }
  });

  it('an RPC that does not answer is a 503, not "nobody owns it"', async () => {
    const down = new Erc8004RegistryAdapter({
      rpcUrls: { 31337: 'http://127.0.0.1:1' },
      allowed: [],
      timeoutMs: 500,
      breaker: { threshold: 5, openMs: 60_000 },
      clock: new ManualClock(),
    });
    await expect(down.ownerOf({ chainId: 31337, address: registry }, 1n)).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
