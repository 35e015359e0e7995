/**
 * Headless Chromium for the console's end-to-end tests (playwright-core driving Debian's
 * `chromium`; `.ci/run` installs it when missing), and a fake Solana wallet injected into the
 * page: `window.solana` with `connect` and `signMessage`, signing in the test process with a
 * tweetnacl keypair (the secret key never enters the page).
 */
import { mkdirSync } from 'node:fs';
import axe from 'axe-core';
import bs58 from 'bs58';
import { type Browser, chromium, type Page } from 'playwright-core';
import nacl from 'tweetnacl';
import { type Hex, hexToString } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  });
}

export interface InjectedWalletOptions {
  /**
   * Refuse, as Phantom and MetaMask do, a sign-in message (SIWS / EIP-4361) whose `domain`
   * is not the host of the page asking (`location.host`): the error a wallet gives when the
   * user rejects (EIP-1193 code 4001). Off by default: the console's tests run the service
   * under a PUBLIC_URL other than the address the browser loads it from.
   */
  checkDomain?: boolean;
}

type DomainCheck = (text: string) => void;

/**
 * A wallet's domain check, as `window.__testWalletDomainCheck` of the page: throws when `text`
 * is a sign-in message naming another domain than the page's host.
 */
async function addDomainCheck(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const check: DomainCheck = (text) => {
      const domain = /^(\S+) wants you to sign in with your (?:Solana|Ethereum) account:\n/.exec(text)?.[1];
      if (domain !== undefined && domain !== location.host) {
        throw Object.assign(new Error(`deceptive site request: the message is for ${domain}, the page is ${location.host}`), {
          code: 4001,
        });
      }
    };
    (window as unknown as { __testWalletDomainCheck: DomainCheck }).__testWalletDomainCheck = check;
  });
}

/** Gives `page` a Solana wallet (before any script of the page runs); answers its address. */
export async function injectSolanaWallet(page: Page, keypair = nacl.sign.keyPair(), options: InjectedWalletOptions = {}): Promise<string> {
  const address = bs58.encode(keypair.publicKey);
  if (options.checkDomain) await addDomainCheck(page);
  await page.exposeFunction('__testWalletSign', (bytes: number[]) =>
    Array.from(nacl.sign.detached(Uint8Array.from(bytes), keypair.secretKey)),
  );
  await page.addInitScript(
    ({ walletAddress, domainCheck }: { walletAddress: string; domainCheck: boolean }) => {
      const sign = (window as unknown as { __testWalletSign(bytes: number[]): Promise<number[]> }).__testWalletSign;
      const check = domainCheck ? (window as unknown as { __testWalletDomainCheck: DomainCheck }).__testWalletDomainCheck : undefined;
      const publicKey = { toString: () => walletAddress };
      (window as unknown as { solana: unknown }).solana = {
        publicKey,
        connect: async () => ({ publicKey }),
        signMessage: async (message: Uint8Array) => {
          check?.(new TextDecoder().decode(message));
          return { signature: Uint8Array.from(await sign(Array.from(message))) };
        },
      };
    },
    { walletAddress: address, domainCheck: options.checkDomain === true },
  );
  return address;
}

/**
 * Gives `page` an EIP-1193 wallet (`window.ethereum`: `eth_requestAccounts`, `eth_chainId` on
 * mainnet, `personal_sign`), signing in the test process with a viem account (the key never
 * enters the page); answers its address.
 */
export async function injectEvmWallet(
  page: Page,
  privateKey: Hex = generatePrivateKey(),
  options: InjectedWalletOptions = {},
): Promise<string> {
  const account = privateKeyToAccount(privateKey);
  if (options.checkDomain) await addDomainCheck(page);
  await page.exposeFunction('__testEvmSign', (message: Hex) => account.signMessage({ message: hexToString(message) }));
  await page.addInitScript(
    ({ address, domainCheck }: { address: string; domainCheck: boolean }) => {
      const sign = (window as unknown as { __testEvmSign(message: string): Promise<string> }).__testEvmSign;
      const check = domainCheck ? (window as unknown as { __testWalletDomainCheck: DomainCheck }).__testWalletDomainCheck : undefined;
      // personal_sign's message is 0x-hex of the UTF-8 text.
      const text = (hex: string) =>
        new TextDecoder().decode(Uint8Array.from(hex.slice(2).match(/../g) ?? [], (byte) => Number.parseInt(byte, 16)));
      (window as unknown as { ethereum: unknown }).ethereum = {
        request: async ({ method, params }: { method: string; params?: unknown[] }) => {
          if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [address];
          if (method === 'eth_chainId') return '0x1';
          if (method === 'personal_sign') {
            check?.(text(String(params?.[0])));
            return sign(String(params?.[0]));
          }
          throw Object.assign(new Error(`unsupported method ${method}`), { code: 4200 });
        },
      };
    },
    { address: account.address, domainCheck: options.checkDomain === true },
  );
  return account.address;
}

/** Where the console's screenshots go (test artifacts, not committed). */
const SCREENSHOT_DIR = new URL('../console/screenshots/', import.meta.url);

/**
 * A page as a person sees it: a full-page screenshot (a test artifact) and an accessibility
 * check with axe-core (WCAG 2.1 A and AA rules) that fails on any serious or critical violation.
 */
export async function capturePage(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOT_DIR).pathname, fullPage: true });
  const problems = await accessibilityProblems(page);
  if (problems.length > 0) throw new Error(`accessibility (${name}):\n${problems.join('\n')}`);
}

/** Serious and critical axe-core violations of the page as it is now, one line each. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  // Through the DevTools protocol, so the console's CSP (scripts from its own origin only) does not refuse it.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axe.source);
  const violations = await page.evaluate(async () => {
    const found = await (window as unknown as { axe: typeof axe }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    });
    return found.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => String(n.target)).slice(0, 3),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join(', ')})`);
}
