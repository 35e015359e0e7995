/**
 * Headless Chromium for the console's end-to-end tests (playwright-core driving Debian's
 * `chromium`; `.ci/run` installs it when missing), and a fake Solana wallet injected into the
 * page: `window.solana` with `connect` and `signMessage`, signing in the test process with a
 * tweetnacl keypair (the secret key never enters the page).
 */
import { mkdirSync } from 'node:fs';
import bs58 from 'bs58';
import { type Browser, chromium, type Page } from 'playwright-core';
import nacl from 'tweetnacl';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
}

/** Gives `page` a Solana wallet (before any script of the page runs); answers its address. */
export async function injectSolanaWallet(page: Page, keypair = nacl.sign.keyPair()): Promise<string> {
  const address = bs58.encode(keypair.publicKey);
  await page.exposeFunction('__testWalletSign', (bytes: number[]) =>
    Array.from(nacl.sign.detached(Uint8Array.from(bytes), keypair.secretKey)),
  );
  await page.addInitScript((walletAddress: string) => {
    const sign = (window as unknown as { __testWalletSign(bytes: number[]): Promise<number[]> }).__testWalletSign;
    const publicKey = { toString: () => walletAddress };
    (window as unknown as { solana: unknown }).solana = {
      publicKey,
      connect: async () => ({ publicKey }),
      signMessage: async (message: Uint8Array) => ({ signature: Uint8Array.from(await sign(Array.from(message))) }),
    };
  }, address);
  return address;
}

/** Where the console's screenshots go (test artifacts, not committed). */
const SCREENSHOT_DIR = new URL('../console/screenshots/', import.meta.url);

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOT_DIR).pathname, fullPage: true });
}
