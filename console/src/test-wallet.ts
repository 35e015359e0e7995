/**
 * The test wallet: an Ed25519 (Solana) keypair made in this browser, for trying the console
 * without a wallet extension. The service offers it on its embedded profile only (an evaluation
 * install); it signs in through the same SIWS route as a real wallet. The private key is a
 * non-extractable Web Crypto key kept in IndexedDB: the page can sign with it, but no script can
 * read its bytes, and it never leaves this browser. It holds nothing of value and must never.
 */
import { cryptoKeySigner, type SolanaSigner } from 'agent-runtime-sdk';

const DB_NAME = 'agent-console-test-wallet';
const STORE = 'wallets';
const KEY = 'solana';

interface StoredWallet {
  address: string;
  keys: CryptoKeyPair;
}

export interface TestWallet {
  address: string;
  signer: SolanaSigner;
}

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB_NAME, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('The browser refused its storage (IndexedDB)'));
  });
}

async function run<T>(mode: IDBTransactionMode, work: (store: IDBObjectStore) => IDBRequest): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const request = work(db.transaction(STORE, mode).objectStore(STORE));
      request.onsuccess = () => resolve(request.result as T);
      request.onerror = () => reject(request.error ?? new Error('The browser refused its storage (IndexedDB)'));
    });
  } finally {
    db.close();
  }
}

/** The test wallet this browser keeps, if it made one. */
export async function storedTestWallet(): Promise<TestWallet | undefined> {
  if (typeof indexedDB === 'undefined') return undefined;
  const stored = await run<StoredWallet | undefined>('readonly', (store) => store.get(KEY));
  return stored ? { address: stored.address, signer: await cryptoKeySigner(stored.keys) } : undefined;
}

/** The kept test wallet, or a new one made and kept now. */
export async function testWallet(): Promise<TestWallet> {
  const kept = await storedTestWallet();
  if (kept) return kept;
  // The private key cannot be exported (`extractable: false`); the public key always can.
  const keys = (await crypto.subtle.generateKey({ name: 'Ed25519' }, false, ['sign', 'verify'])) as CryptoKeyPair;
  const signer = await cryptoKeySigner(keys);
  const stored: StoredWallet = { address: signer.address, keys };
  await run('readwrite', (store) => store.put(stored, KEY));
  return { address: signer.address, signer };
}

/** Deletes the test wallet from this browser (an operator signed in with it stays that operator's, unreachable). */
export async function forgetTestWallet(): Promise<void> {
  await run('readwrite', (store) => store.delete(KEY));
}
