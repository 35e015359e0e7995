import { describe, expect, it } from 'vitest';
import { buildSiwsMessage, parseSiwsMessage } from '../../../src/auth/wallet/siws.js';
import { SolanaLoginRequestSchema } from '../../../src/auth/wallet/wallet-login.schemas.js';
import { DOMAIN, expectAppError, makeHarness, PUBLIC_URL, solanaWallet } from '../../support/wallet-login-harness.js';

const MISMATCH = 'Wallet address does not match signed message';

async function started() {
  const h = await makeHarness();
  const wallet = solanaWallet();
  const challenge = await h.service.startSolana({ walletAddress: wallet.address });
  const body = { message: challenge.message, signature: wallet.sign(challenge.message), walletAddress: wallet.address };
  return { ...h, wallet, challenge, body };
}

describe('WalletLoginService — Solana (SIWS)', () => {
  it('issues a SIWS message for our domain that the wallet signs to log in', async () => {
    const { service, clock, wallet, challenge, body } = await started();
    const fields = parseSiwsMessage(challenge.message);
    expect(fields).toMatchObject({
      domain: DOMAIN,
      address: wallet.address,
      statement: 'Sign in to the agent service',
      uri: PUBLIC_URL,
      chainId: 'mainnet',
      nonce: challenge.nonce,
      issuedAt: new Date(clock.now()).toISOString(),
      expirationTime: challenge.expiresAt,
    });
    expect(SolanaLoginRequestSchema.parse(body)).toEqual(body);
    await expect(service.loginSolana(body)).resolves.toEqual({ walletAddress: wallet.address });
  });

  it('rejects a replay with `Nonce already consumed`', async () => {
    const { service, body } = await started();
    await service.loginSolana(body);
    await expectAppError(service.loginSolana(body), 401, 'Nonce already consumed');
  });

  it('lets exactly one of two concurrent logins with one nonce succeed', async () => {
    const { service, body } = await started();
    const results = await Promise.allSettled([service.loginSolana(body), service.loginSolana(body)]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { message: 'Nonce already consumed' } });
  });

  it('rejects an unknown nonce with `Invalid or expired nonce`', async () => {
    const { service, challenge, wallet } = await started();
    const forged = challenge.message.replace(challenge.nonce, 'a'.repeat(32));
    await expectAppError(
      service.loginSolana({ message: forged, signature: wallet.sign(forged), walletAddress: wallet.address }),
      401,
      'Invalid or expired nonce',
    );
  });

  it('rejects an expired message with `Invalid or expired nonce`', async () => {
    const { service, clock, body } = await started();
    await clock.advance(5 * 60_000);
    await expectAppError(service.loginSolana(body), 401, 'Invalid or expired nonce');
  });

  it('rejects a body address other than the signed one, signature valid or not', async () => {
    const { service, body, challenge } = await started();
    const other = solanaWallet();
    await expectAppError(service.loginSolana({ ...body, walletAddress: other.address }), 401, MISMATCH);
    const signedByOther = { ...body, walletAddress: other.address, signature: other.sign(challenge.message) };
    await expectAppError(service.loginSolana(signedByOther), 401, MISMATCH);
  });

  it('rejects a nonce bound to another wallet even when the message is validly signed', async () => {
    const { service, clock, challenge } = await started();
    const thief = solanaWallet();
    // The thief re-signs the victim's challenge under their own address.
    const fields = { ...parseSiwsMessage(challenge.message), address: thief.address };
    const message = buildSiwsMessage(fields);
    const stolen = { message, signature: thief.sign(message), walletAddress: thief.address };
    expect(clock.now()).toBeLessThan(Date.parse(challenge.expiresAt));
    await expectAppError(service.loginSolana(stolen), 401, MISMATCH);
  });

  it('answers `Unauthorized` to a bad signature and leaves the nonce usable', async () => {
    const { service, body, wallet } = await started();
    const badSignature = solanaWallet().sign(body.message);
    await expectAppError(service.loginSolana({ ...body, signature: badSignature }), 401, 'Unauthorized');
    await expectAppError(service.loginSolana({ ...body, signature: '1111' }), 401, 'Unauthorized');
    await expect(service.loginSolana(body)).resolves.toEqual({ walletAddress: wallet.address });
  });

  it('rejects a message for another domain even when validly signed', async () => {
    const { service, wallet, challenge } = await started();
    const message = challenge.message.replace(`${DOMAIN} wants`, 'evil.example wants');
    await expectAppError(
      service.loginSolana({ message, signature: wallet.sign(message), walletAddress: wallet.address }),
      401,
      'Unauthorized',
    );
  });

  it('names PUBLIC_URL as the URI, with its scheme and port (an http service does not claim https)', async () => {
    const h = await makeHarness({ publicUrl: 'http://agents.example.com:8080' });
    const wallet = solanaWallet();
    const challenge = await h.service.startSolana({ walletAddress: wallet.address });
    expect(challenge.message).toContain('\nURI: http://agents.example.com:8080\n');
    expect(parseSiwsMessage(challenge.message)).toMatchObject({ domain: 'agents.example.com:8080', uri: 'http://agents.example.com:8080' });
    const body = { message: challenge.message, signature: wallet.sign(challenge.message), walletAddress: wallet.address };
    await expect(h.service.loginSolana(body)).resolves.toEqual({ walletAddress: wallet.address });
  });

  it('refuses a validly signed message whose URI is not on the service origin; the nonce stays usable', async () => {
    const { service, wallet, challenge, body } = await started();
    const fields = parseSiwsMessage(challenge.message);
    for (const uri of [
      'https://evil.example',
      'http://agents.example.com',
      'https://agents.example.com:8443',
      'https://user@agents.example.com',
      'urn:agents.example.com',
    ]) {
      const message = buildSiwsMessage({ ...fields, uri });
      await expect(
        service.loginSolana({ message, signature: wallet.sign(message), walletAddress: wallet.address }),
        uri,
      ).rejects.toMatchObject({
        kind: 'unauthenticated',
        message: 'Unauthorized',
        details: { reason: 'uri not on the expected origin' },
      });
    }
    await expect(service.loginSolana(body)).resolves.toEqual({ walletAddress: wallet.address });
  });

  it('refuses a message issued more than a minute before its nonce; the nonce stays usable', async () => {
    const { service, clock, wallet, challenge, body } = await started();
    const fields = parseSiwsMessage(challenge.message);
    const signed = (issuedAt: number) => {
      const message = buildSiwsMessage({ ...fields, issuedAt: new Date(issuedAt).toISOString() });
      return { message, signature: wallet.sign(message), walletAddress: wallet.address };
    };
    await expect(service.loginSolana(signed(clock.now() - 60_001))).rejects.toMatchObject({
      kind: 'unauthenticated',
      message: 'Unauthorized',
      details: { reason: 'message issued before its nonce' },
    });
    await expect(service.loginSolana(body)).resolves.toEqual({ walletAddress: wallet.address });
  });

  it('accepts an Issued At up to a minute before the nonce (client clock behind ours)', async () => {
    const { service, clock, wallet, challenge } = await started();
    const message = buildSiwsMessage({ ...parseSiwsMessage(challenge.message), issuedAt: new Date(clock.now() - 60_000).toISOString() });
    await expect(service.loginSolana({ message, signature: wallet.sign(message), walletAddress: wallet.address })).resolves.toEqual({
      walletAddress: wallet.address,
    });
  });

  it('answers malformed bodies and messages with 400, not a crash', async () => {
    const { service, body } = await started();
    await expectAppError(service.loginSolana({ ...body, signature: '0OIl' }), 400, 'signature: must be base58');
    await expectAppError(service.loginSolana(undefined), 400, 'body is required');
    await expect(service.loginSolana({ message: body.message })).rejects.toMatchObject({
      kind: 'invalid',
      messages: ['signature is required', 'walletAddress is required'],
    });
    await expectAppError(service.loginSolana({ ...body, walletAddress: 'abc' }), 400, 'walletAddress: must be a base58 Solana public key');
    await expectAppError(service.loginSolana({ ...body, message: 'hello' }), 400, 'message: not a valid SIWS message');
    await expectAppError(
      service.startSolana({ walletAddress: 'not an address' }),
      400,
      'walletAddress: must be a base58 Solana public key',
    );
  });
});
