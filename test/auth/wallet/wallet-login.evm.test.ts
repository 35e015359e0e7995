import { createPublicClient, http, type Address, type Hex } from 'viem';
import { mainnet } from 'viem/chains';
import { describe, expect, it } from 'vitest';
import { verifySiweMessage, type EvmSignatureClient } from '../../../src/auth/wallet/siwe.js';
import { DOMAIN, PUBLIC_URL, evmAccount, expectAppError, makeHarness, siweText, type Harness } from '../../support/wallet-login-harness.js';

const MISMATCH = 'Wallet address does not match signed message';

async function signedLogin(h: Harness, overrides: Partial<Parameters<typeof siweText>[1]> = {}) {
  const account = evmAccount();
  const { nonce } = await h.service.startEvm();
  const message = siweText(account.address, { nonce, issuedAt: new Date(h.clock.now()), ...overrides });
  const signature = await account.signMessage({ message });
  return { account, nonce, message, signature, body: { message, signature } };
}

describe('WalletLoginService — EVM (SIWE)', () => {
  it('logs in with a real EIP-4361 signature and returns the checksummed address', async () => {
    const h = await makeHarness();
    const { account, message, signature } = await signedLogin(h);
    const walletAddress = account.address.toLowerCase();
    await expect(h.service.loginEvm({ message, signature, walletAddress })).resolves.toEqual({
      walletAddress: account.address,
    });
  });

  it('accepts a login without walletAddress (the message names the signer)', async () => {
    const h = await makeHarness();
    const { account, message, signature } = await signedLogin(h);
    await expect(h.service.loginEvm({ message, signature })).resolves.toEqual({ walletAddress: account.address });
  });

  it('rejects replays, and concurrent logins let exactly one through', async () => {
    const h = await makeHarness();
    const { message, signature } = await signedLogin(h);
    const results = await Promise.allSettled([h.service.loginEvm({ message, signature }), h.service.loginEvm({ message, signature })]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await expectAppError(h.service.loginEvm({ message, signature }), 401, 'Nonce already consumed');
  });

  it('rejects unknown and expired nonces with `Invalid or expired nonce`', async () => {
    const h = await makeHarness();
    const unknown = await signedLogin(h, { nonce: 'a'.repeat(32) });
    await expectAppError(h.service.loginEvm(unknown.body), 401, 'Invalid or expired nonce');
    const stale = await signedLogin(h);
    await h.clock.advance(5 * 60_000);
    await expectAppError(h.service.loginEvm(stale.body), 401, 'Invalid or expired nonce');
    const expiring = await signedLogin(h, { expirationTime: new Date(h.clock.now() + 1000) });
    await h.clock.advance(1000);
    await expectAppError(h.service.loginEvm(expiring.body), 401, 'Invalid or expired nonce');
  });

  it('rejects a body address other than the signer', async () => {
    const h = await makeHarness();
    const { message, signature } = await signedLogin(h);
    await expectAppError(h.service.loginEvm({ message, signature, walletAddress: evmAccount().address }), 401, MISMATCH);
  });

  it('a signature by another key is the address mismatch, bytes that are no signature `Unauthorized`; the nonce stays usable', async () => {
    const h = await makeHarness();
    const { account, message, signature } = await signedLogin(h);
    const forged = await evmAccount().signMessage({ message });
    await expectAppError(h.service.loginEvm({ message, signature: forged }), 401, MISMATCH);
    await expectAppError(h.service.loginEvm({ message, signature: '0x1234' }), 401, 'Unauthorized');
    await expect(h.service.loginEvm({ message, signature })).resolves.toEqual({ walletAddress: account.address });
  });

  it('rejects another domain, a disallowed chain, and a message not yet valid', async () => {
    const h = await makeHarness({ evmChainIds: [1, 8453] });
    await expectAppError(h.service.loginEvm((await signedLogin(h, { domain: 'evil.example' })).body), 401, 'Unauthorized');
    await expectAppError(h.service.loginEvm((await signedLogin(h, { chainId: 137 })).body), 401, 'Unauthorized');
    const early = await signedLogin(h, { notBefore: new Date(h.clock.now() + 60_000) });
    await expectAppError(h.service.loginEvm(early.body), 401, 'Unauthorized');
    await expect(h.service.loginEvm((await signedLogin(h, { chainId: 8453 })).body)).resolves.toBeDefined();
  });

  it('refuses a URI off the service origin (another site, another scheme); a path on it is fine', async () => {
    const h = await makeHarness();
    const refused = { kind: 'unauthenticated', message: 'Unauthorized', details: { reason: 'uri not on the expected origin' } };
    for (const uri of [
      'https://evil.example/login',
      'http://agents.example.com/login',
      'https://agents.example.com:8443/',
      'did:pkh:agents.example.com',
    ]) {
      const attempt = await signedLogin(h, { uri });
      await expect(h.service.loginEvm(attempt.body), uri).rejects.toMatchObject(refused);
    }
    await expect(h.service.loginEvm((await signedLogin(h, { uri: PUBLIC_URL })).body)).resolves.toBeDefined();
    await expect(h.service.loginEvm((await signedLogin(h, { uri: `${PUBLIC_URL}/app/login?x=1` })).body)).resolves.toBeDefined();
  });

  it('by default serves the chains of the project chain table only (1, 8453, 42161, 10)', async () => {
    const h = await makeHarness();
    for (const chainId of [137, 56, 11155111]) {
      await expect(h.service.loginEvm((await signedLogin(h, { chainId })).body), String(chainId)).rejects.toMatchObject({
        kind: 'unauthenticated',
        message: 'Unauthorized',
        details: { reason: 'chain id not served' },
      });
    }
    for (const chainId of [1, 8453, 42161, 10])
      await expect(h.service.loginEvm((await signedLogin(h, { chainId })).body)).resolves.toBeDefined();
  });

  it('refuses an Issued At more than a minute before the nonce was issued; the nonce stays usable', async () => {
    const h = await makeHarness();
    const account = evmAccount();
    const { nonce } = await h.service.startEvm();
    const login = async (issuedAt: number) => {
      const message = siweText(account.address, { nonce, issuedAt: new Date(issuedAt) });
      return h.service.loginEvm({ message, signature: await account.signMessage({ message }) });
    };
    await expect(login(h.clock.now() - 60_001)).rejects.toMatchObject({
      kind: 'unauthenticated',
      message: 'Unauthorized',
      details: { reason: 'message issued before its nonce' },
    });
    await expect(login(h.clock.now() - 3_600_000)).rejects.toMatchObject({
      kind: 'unauthenticated',
      details: { reason: 'message issued before its nonce' },
    });
    await expect(login(h.clock.now() - 60_000)).resolves.toEqual({ walletAddress: account.address });
  });

  it('a nonce requested for a wallet logs in only that wallet (any casing of it)', async () => {
    const h = await makeHarness();
    const owner = evmAccount();
    const other = evmAccount();
    const { nonce } = await h.service.startEvm({ walletAddress: owner.address.toLowerCase() });
    const signedBy = async (account: typeof owner) => {
      const message = siweText(account.address, { nonce, issuedAt: new Date(h.clock.now()) });
      return { message, signature: await account.signMessage({ message }) };
    };
    await expectAppError(h.service.loginEvm(await signedBy(other)), 401, MISMATCH);
    await expect(h.service.loginEvm(await signedBy(owner))).resolves.toEqual({ walletAddress: owner.address });
    // Unbound nonces (no body, empty body) still log in anyone.
    await expect(h.service.startEvm()).resolves.toMatchObject({ nonce: expect.any(String) });
    await expect(h.service.startEvm({})).resolves.toMatchObject({ nonce: expect.any(String) });
  });

  it('validates the nonce body: an EVM address in lower case, upper case or EIP-55 checksummed; nothing else', async () => {
    const h = await makeHarness();
    const account = evmAccount();
    await expect(h.service.startEvm({ walletAddress: account.address })).resolves.toBeDefined();
    await expect(h.service.startEvm({ walletAddress: account.address.toLowerCase() })).resolves.toBeDefined();
    // All upper case carries no checksum claim, like all lower case.
    await expect(h.service.startEvm({ walletAddress: `0x${account.address.slice(2).toUpperCase()}` })).resolves.toBeDefined();
    // One letter's case flipped: a typo the checksum catches.
    const letter = account.address.search(/[a-fA-F]/);
    const ch = account.address[letter]!;
    const typo =
      account.address.slice(0, letter) +
      (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase()) +
      account.address.slice(letter + 1);
    const wrong = 'walletAddress: must be a 0x-prefixed EVM address (lower case, upper case or EIP-55 checksummed)';
    for (const walletAddress of [typo, '0x1234', 'abc', `${account.address}00`])
      await expectAppError(h.service.startEvm({ walletAddress }), 400, wrong);
    await expectAppError(h.service.startEvm({ walletAddress: 5 }), 400, 'walletAddress must be string');
    await expectAppError(h.service.startEvm({ walletAddress: account.address, chainId: 1 }), 400, 'chainId is not a known field');
  });

  it('answers malformed input with 400, not a crash', async () => {
    const h = await makeHarness();
    const { message, signature } = await signedLogin(h);
    await expectAppError(h.service.loginEvm({ message: 'hello', signature }), 400, 'message: not a valid SIWE message');
    const lowercased = message.replace(/0x[0-9a-fA-F]{40}/, (a) => a.toLowerCase());
    await expectAppError(h.service.loginEvm({ message: lowercased, signature }), 400, 'message: not a valid SIWE message');
    await expectAppError(h.service.loginEvm({ message, signature: 'zz' }), 400, 'signature: must be 0x-prefixed hex');
    await expectAppError(
      h.service.loginEvm({ message, signature, walletAddress: 'abc' }),
      400,
      'walletAddress: must be a 0x-prefixed EVM address',
    );
  });
});

describe('verifySiweMessage with a public client (contract wallets)', () => {
  const now = Date.UTC(2026, 0, 1);
  const contractWallet: Address = '0x1111111111111111111111111111111111111111';
  const message = siweText(contractWallet, { nonce: 'n0nce1234', issuedAt: new Date(now) });
  // Not an ECDSA signature of anyone: only the contract can say whether it is valid.
  const signature: Hex = `0x${'ab'.repeat(100)}`;
  const verify = (publicClient: EvmSignatureClient) =>
    verifySiweMessage({ message, signature, expectedDomain: DOMAIN, expectedOrigin: PUBLIC_URL, allowedChainIds: [1], now, publicClient });

  function stub(answer: boolean | Error, chainId = 1): EvmSignatureClient & { calls: number } {
    return {
      chain: { id: chainId },
      calls: 0,
      async verifyMessage() {
        this.calls++;
        if (answer instanceof Error) throw answer;
        return answer;
      },
    };
  }

  it('trusts the client for a non-EOA signature', async () => {
    const yes = stub(true);
    await expect(verify(yes)).resolves.toEqual({
      address: contractWallet,
      nonce: 'n0nce1234',
      chainId: 1,
      domain: DOMAIN,
      issuedAt: now,
      statement: 'Sign in to the agent service',
    });
    expect(yes.calls).toBe(1);
    await expectAppError(verify(stub(false)), 401, 'Unauthorized');
  });

  it('does not ask a client on another chain than the message', async () => {
    const otherChain = stub(true, 8453);
    await expectAppError(verify(otherChain), 401, 'Unauthorized');
    expect(otherChain.calls).toBe(0);
  });

  it('reports an RPC failure as a retryable 503, not as a bad signature', async () => {
    await expect(verify(stub(new Error('rpc down')))).rejects.toMatchObject({
      kind: 'unavailable',
      code: 'DEPENDENCY_UNAVAILABLE',
      retryable: true,
    });
  });

  it('never asks the client about an EOA signature', async () => {
    const h = await makeHarness({ evmPublicClient: stub(new Error('must not be called')) });
    const { account, message: eoaMessage, signature: eoaSignature } = await signedLogin(h);
    await expect(h.service.loginEvm({ message: eoaMessage, signature: eoaSignature })).resolves.toEqual({ walletAddress: account.address });
  });

  it('accepts a real viem PublicClient as the client type', () => {
    // Type-level check only: constructing a client does not touch the network.
    const client: EvmSignatureClient = createPublicClient({ chain: mainnet, transport: http('http://127.0.0.1:1') });
    expect(client.chain?.id).toBe(1);
  });
});
