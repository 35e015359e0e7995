/**
 * ERC-8004 onboarding with a contract wallet (ERC-1271): with `EVM_RPC_URL` set, a
 * SIWE message whose address is a contract is accepted when the contract's
 * `isValidSignature(hash, signature)` answers the magic value `0x1626ba7e`, asked with a real
 * `eth_call` on an in-process EVM (EDR) behind a JSON-RPC endpoint. The two wallets below are
 * assembled by hand (no Solidity compiler here): one answers the magic value for any signature,
 * the other never does, so the service's answer depends on the contract alone.
 */
import { createPublicClient, createWalletClient, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EdrChain } from '../adapters/live/support/edr-chain.js';
import { serveRpc } from '../support/erc721-registry.js';
import { Client, evmWallet, startTestService, type TestService } from '../support/test-service.js';
import { privateKeyToAccount } from 'viem/accounts';

const ONBOARD = '/api/public/erc8004/onboarding';

/** Runtime code: `mstore(0, shl(224, value)); return(0, 32)` — answers `value` (a bytes4) to any call. */
function answering(value: Hex): Hex {
  const runtime = `63${value.slice(2)}60e01b60005260206000f3`;
  const length = runtime.length / 2;
  // Init code: copy the runtime (after these 11 bytes) into memory and return it.
  const init = `60${length.toString(16).padStart(2, '0')}80600b6000396000f3`;
  return `0x${init}${runtime}`;
}

let svc: TestService;
let client: Client;
let rpc: Awaited<ReturnType<typeof serveRpc>>;
let accepting: Address;
let refusing: Address;
const deployer = evmWallet();
const signer = evmWallet();

async function deploy(edr: EdrChain, code: Hex): Promise<Address> {
  const wallet = createWalletClient({ account: privateKeyToAccount(deployer.privateKey), transport: edr.transport });
  const hash = await wallet.sendTransaction({ data: code, chain: null, gas: 100_000n });
  const receipt = await createPublicClient({ transport: edr.transport }).waitForTransactionReceipt({ hash });
  if (!receipt.contractAddress) throw new Error('deployment failed');
  return receipt.contractAddress;
}

beforeAll(async () => {
  const edr = await EdrChain.start({ chainId: 31337, funded: [{ address: deployer.address, wei: 10n ** 20n }] });
  accepting = await deploy(edr, answering('0x1626ba7e'));
  refusing = await deploy(edr, answering('0xffffffff'));
  rpc = await serveRpc(edr);
  svc = await startTestService({ env: { EVM_RPC_URL: rpc.url } });
  client = new Client(svc.url);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  await new Promise<void>((resolve) => (rpc ? rpc.server.close(() => resolve()) : resolve()));
});

/** A SIWE message for `address` (a contract), signed by an EOA that is not that address. */
async function onboardAs(address: Address) {
  const { body } = await client.post('/api/nest/auth/evm/nonce', {});
  const message = signer.message(body.nonce, new Date(), { address });
  return client.post(`${ONBOARD}/siwe`, { message, signature: await signer.sign(message), scope: 'read' });
}

describe('onboarding with a contract wallet (ERC-1271)', () => {
  it('a contract that vouches for the signature onboards its agent; the check was an eth_call on the chain', async () => {
    const answer = await onboardAs(accepting);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      agentId: expect.stringMatching(/^agt_/),
      verified: false,
      scope: 'read',
      accessToken: expect.any(String),
    });
    expect(rpc.calls).toContain('eth_call');
  });

  it('a contract that does not vouch for it is refused, as a signature by another key is', async () => {
    const answer = await onboardAs(refusing);
    expect(answer.status).toBe(401);
    expect(answer.body.message).toBe('Wallet address does not match signed message');
  });
});
