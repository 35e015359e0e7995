// @vitest-environment happy-dom
/**
 * Sign-in with the browser's wallet: without one the page says what to install; with a Solana
 * wallet it signs the service's message and hands the user on; a refusal reads word for word.
 */
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SignInPage } from '../src/pages/sign-in.page.js';
import { OPERATOR, refusal, signedInService } from './support/fake-service.js';

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

function solanaWallet() {
  const publicKey = { toString: () => OPERATOR.walletAddress };
  const signMessage = vi.fn(async (_message: Uint8Array) => ({ signature: new Uint8Array(64).fill(1) }));
  vi.stubGlobal('solana', { publicKey, connect: async () => ({ publicKey }), signMessage });
  return signMessage;
}

describe('SignInPage', () => {
  it('says to install a wallet when the browser has none, its buttons off', async () => {
    // The page asks the service whether it offers the test wallet: answered here, not sent to a port where nothing listens.
    await signedInService();
    render(<SignInPage onSignedIn={() => undefined} />);
    expect(screen.getByText(/No wallet found in this browser/)).toBeTruthy();
    expect((screen.getByRole('button', { name: 'Sign in with a Solana wallet' }) as HTMLButtonElement).disabled).toBe(true);
    expect((screen.getByRole('button', { name: 'Sign in with an Ethereum wallet' }) as HTMLButtonElement).disabled).toBe(true);
  });

  it("signs the service's message with the Solana wallet and hands the user on", async () => {
    const service = await signedInService();
    const sign = solanaWallet();
    const onSignedIn = vi.fn();
    render(<SignInPage onSignedIn={onSignedIn} />);
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with a Solana wallet' }));
    await waitFor(() => expect(onSignedIn).toHaveBeenCalledWith(OPERATOR));
    const nonce = service.calls('POST', '/api/nest/auth/nonce').at(-1);
    expect(nonce?.body).toEqual({ walletAddress: OPERATOR.walletAddress });
    const login = service.calls('POST', '/api/nest/auth/login').at(-1)?.body as { message: string; walletAddress: string };
    expect(new TextDecoder().decode(sign.mock.calls[0]?.[0])).toBe(login.message);
    expect(login.walletAddress).toBe(OPERATOR.walletAddress);
  });

  it("shows the service's refusal word for word and stays on the page", async () => {
    const service = await signedInService();
    solanaWallet();
    service.on('POST', '/api/nest/auth/login', () => refusal(401, 'Wallet address does not match signed message'));
    const onSignedIn = vi.fn();
    render(<SignInPage onSignedIn={onSignedIn} />);
    fireEvent.click(screen.getByRole('button', { name: 'Sign in with a Solana wallet' }));
    expect((await screen.findByRole('alert')).textContent).toBe('Wallet address does not match signed message');
    expect(onSignedIn).not.toHaveBeenCalled();
  });
});
