/**
 * The bot owner's sign-in inside the widget with an injected wallet: a Solana wallet
 * (`window.phantom.solana` or `window.solana`) signs the SIWS message, an EVM one
 * (`window.ethereum`) the EIP-4361 message, both as the service built them: naming this
 * page's origin, which the wallet checks against the page asking.
 */
import type { WidgetApi } from './api.js';

interface SolanaWallet {
  connect(): Promise<{ publicKey: { toString(): string } }>;
  signMessage(message: Uint8Array, encoding?: string): Promise<{ signature: Uint8Array } | Uint8Array>;
}
interface EvmWallet {
  request(args: { method: string; params?: unknown[] }): Promise<unknown>;
}

const injected = window as unknown as { phantom?: { solana?: SolanaWallet }; solana?: SolanaWallet; ethereum?: EvmWallet };

export type WalletChain = 'solana' | 'evm';

/**
 * The kinds of wallet this browser has, Solana first. One extension may inject both (Phantom
 * does): the owner then says which one owns the bot, since the widget cannot know.
 */
export function walletChains(): WalletChain[] {
  const chains: WalletChain[] = [];
  if (injected.phantom?.solana ?? injected.solana) chains.push('solana');
  if (injected.ethereum) chains.push('evm');
  return chains;
}

/** Signs in with the browser's `chain` wallet; resolves once the service accepted the owner's signature. */
export async function signInWithWallet(api: WidgetApi, chain: WalletChain): Promise<void> {
  const solana = injected.phantom?.solana ?? injected.solana;
  if (chain === 'solana') {
    if (!solana) throw new Error('No Solana wallet found in this browser.');
    const { publicKey } = await solana.connect();
    const address = publicKey.toString();
    const { message } = await api.challenge('solana', address);
    const signed = await solana.signMessage(new TextEncoder().encode(message), 'utf8');
    await api.signIn(message, base58(signed instanceof Uint8Array ? signed : signed.signature));
    return;
  }
  const evm = injected.ethereum;
  if (!evm) throw new Error('No Ethereum wallet found in this browser.');
  const [address] = (await evm.request({ method: 'eth_requestAccounts' })) as string[];
  if (!address) throw new Error('The wallet shared no account.');
  const { message } = await api.challenge('evm', address);
  const hex = `0x${Array.from(new TextEncoder().encode(message), (b) => b.toString(16).padStart(2, '0')).join('')}`;
  const signature = (await evm.request({ method: 'personal_sign', params: [hex, address] })) as string;
  await api.signIn(message, signature);
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** base58 (Bitcoin alphabet) of `bytes`: the signature encoding the Solana sign-in takes. */
function base58(bytes: Uint8Array): string {
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += (digits[i] ?? 0) << 8;
      digits[i] = carry % 58;
      carry = Math.floor(carry / 58);
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = Math.floor(carry / 58);
    }
  }
  let out = '';
  for (const byte of bytes) {
    if (byte !== 0) break;
    out += '1';
  }
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i] ?? 0];
  return out;
}
