/**
 * Sign-ins that name another origin than the service's: the chat widget's owner sign-in,
 * whose page is a shop's (the widget session's origin). A message names exactly one origin
 * and is accepted only by the sign-in that expects it: a shop's message never opens an
 * operator session, a console message never signs in a widget on another origin.
 */
import { describe, expect, it } from 'vitest';
import { WIDGET_SIGN_IN_STATEMENT } from '../../../src/auth/wallet/message-purpose.js';
import { parseSiwsMessage } from '../../../src/auth/wallet/siws.js';
import type { ProvenWallet } from '../../../src/auth/wallet/wallet-login.service.js';
import { DOMAIN, PUBLIC_URL, evmAccount, expectAppError, makeHarness, solanaWallet } from '../../support/wallet-login-harness.js';

/** A widget session's origin (normalised, as widget-origins.ts keeps it). */
const SHOP = 'https://shop.example.com';
const OTHER_SHOP = 'http://localhost:5173';

/** A `prove` input that records the wallets its owner check saw. */
function proveInput(message: string, signature: string, origin?: string) {
  const checked: ProvenWallet[] = [];
  return {
    checked,
    input: {
      message,
      signature,
      ...(origin === undefined ? {} : { origin }),
      purpose: 'widget' as const,
      beforeConsume: async (wallet: ProvenWallet) => {
        checked.push(wallet);
      },
    },
  };
}

describe('WalletLoginService — sign-in for another origin (the chat widget)', () => {
  it('Solana: the message names the widget origin (host as domain, URI on it) and its sign-in accepts it', async () => {
    const { service } = await makeHarness();
    const wallet = solanaWallet();
    const { message } = await service.startSolana({ walletAddress: wallet.address }, SHOP, WIDGET_SIGN_IN_STATEMENT);
    expect(parseSiwsMessage(message)).toMatchObject({ domain: 'shop.example.com', uri: SHOP, address: wallet.address });
    const { input, checked } = proveInput(message, wallet.sign(message), SHOP);
    await expect(service.prove(input)).resolves.toMatchObject({ chain: 'solana', address: wallet.address });
    expect(checked).toHaveLength(1);
    // Single use, as every sign-in.
    await expectAppError(service.prove(input), 401, 'Nonce already consumed');
  });

  it('Solana: a widget message is refused by the normal login and by a sign-in without origin, its nonce left for the widget', async () => {
    const { service } = await makeHarness();
    const wallet = solanaWallet();
    const { message } = await service.startSolana({ walletAddress: wallet.address }, SHOP, WIDGET_SIGN_IN_STATEMENT);
    const signature = wallet.sign(message);
    await expectAppError(service.loginSolana({ message, signature, walletAddress: wallet.address }), 401, 'Unauthorized');
    const claim = proveInput(message, signature);
    await expectAppError(service.prove(claim.input), 401, 'Unauthorized');
    expect(claim.checked).toEqual([]);
    // Another allowed shop of the same bot is another origin.
    await expectAppError(service.prove(proveInput(message, signature, OTHER_SHOP).input), 401, 'Unauthorized');
    await expect(service.prove(proveInput(message, signature, SHOP).input)).resolves.toMatchObject({ address: wallet.address });
  });

  it('Solana: a service-domain message is refused by the widget sign-in for a shop origin', async () => {
    const { service } = await makeHarness();
    const wallet = solanaWallet();
    // A widget sign-in's statement, so that the origin is what is refused.
    const { message } = await service.startSolana({ walletAddress: wallet.address }, undefined, WIDGET_SIGN_IN_STATEMENT);
    expect(parseSiwsMessage(message)).toMatchObject({ domain: DOMAIN, uri: PUBLIC_URL });
    const widget = proveInput(message, wallet.sign(message), SHOP);
    await expect(service.prove(widget.input)).rejects.toMatchObject({
      kind: 'unauthenticated',
      message: 'Unauthorized',
      details: { reason: 'domain mismatch' },
    });
    // Refused before the owner check and the nonce: a widget on the service's own origin still takes it.
    expect(widget.checked).toEqual([]);
    await expect(service.prove(proveInput(message, wallet.sign(message), PUBLIC_URL).input)).resolves.toMatchObject({
      address: wallet.address,
    });
  });

  it('Solana: the shop domain with a URI on the service origin (or the reverse) is refused', async () => {
    const { service } = await makeHarness();
    const wallet = solanaWallet();
    const { message } = await service.startSolana({ walletAddress: wallet.address }, SHOP, WIDGET_SIGN_IN_STATEMENT);
    const mixed = message.replace(`URI: ${SHOP}`, `URI: ${PUBLIC_URL}`);
    await expect(service.prove(proveInput(mixed, wallet.sign(mixed), SHOP).input)).rejects.toMatchObject({
      kind: 'unauthenticated',
      details: { reason: 'uri not on the expected origin' },
    });
    // The same with a sign-in's statement, so that the origin is what the normal login refuses.
    const signIn = mixed.replace(WIDGET_SIGN_IN_STATEMENT, 'Sign in to the agent service');
    await expect(
      service.loginSolana({ message: signIn, signature: wallet.sign(signIn), walletAddress: wallet.address }),
    ).rejects.toMatchObject({
      kind: 'unauthenticated',
      details: { reason: 'domain mismatch' },
    });
  });

  it('EVM: the widget-origin message is accepted by its sign-in, refused by the normal login; a service message refused by the widget', async () => {
    const { service } = await makeHarness();
    const account = evmAccount();
    const shop = await service.startEvmMessage({ walletAddress: account.address }, OTHER_SHOP, WIDGET_SIGN_IN_STATEMENT);
    expect(shop.message).toMatch(new RegExp(`^localhost:5173 wants you to sign in with your Ethereum account:\\n${account.address}\\n`));
    expect(shop.message).toContain(`\nURI: ${OTHER_SHOP}\n`);
    const shopSignature = await account.signMessage({ message: shop.message });
    await expectAppError(service.loginEvm({ message: shop.message, signature: shopSignature }), 401, 'Unauthorized');
    await expectAppError(service.prove(proveInput(shop.message, shopSignature, SHOP).input), 401, 'Unauthorized');
    const accepted = proveInput(shop.message, shopSignature, OTHER_SHOP);
    await expect(service.prove(accepted.input)).resolves.toMatchObject({ chain: 'evm', address: account.address });
    expect(accepted.checked).toHaveLength(1);

    const own = await service.startEvmMessage({ walletAddress: account.address });
    expect(own.message.startsWith(`${DOMAIN} wants you to sign in`)).toBe(true);
    const signature = await account.signMessage({ message: own.message });
    const widget = proveInput(own.message, signature, SHOP);
    await expectAppError(service.prove(widget.input), 401, 'Unauthorized');
    expect(widget.checked).toEqual([]);
    await expect(service.loginEvm({ message: own.message, signature })).resolves.toEqual({ walletAddress: account.address });
  });
});
