/**
 * Sign-In With Solana message text, as the Solana wallet-standard `signIn` feature defines
 * it (written here because `@solana/wallet-standard-util` needs Node 22), and the ed25519
 * signature check over its UTF-8 bytes.
 */
import bs58 from 'bs58';
import { ed25519 } from '@noble/curves/ed25519.js';
import { isIsoTime } from '../../../kernel/shared/iso-time.js';

/** The fields of a SIWS message, in wallet-standard order. */
export interface SiwsFields {
  /** RFC 3986 authority of the requesting site (host[:port]). */
  domain: string;
  /** base58 ed25519 public key. */
  address: string;
  /** One line; no newlines. */
  statement?: string;
  uri: string;
  version: '1';
  /** e.g. `mainnet`, `devnet`, `solana:mainnet`. */
  chainId: string;
  nonce: string;
  /** ISO 8601. */
  issuedAt: string;
  expirationTime?: string;
  notBefore?: string;
  requestId?: string;
  resources?: string[];
}

/** Thrown by `parseSiwsMessage` (and by `buildSiwsMessage` on unsafe input). */
export class SiwsFormatError extends Error {
  constructor(reason: string) {
    super(`Malformed SIWS message: ${reason}`);
    this.name = 'SiwsFormatError';
  }
}

const SIGNATURE_BYTES = 64;
const PUBLIC_KEY_BYTES = 32;
const HEADER = /^(?<domain>[^\s/?#@]+) wants you to sign in with your Solana account:$/;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;
const NONCE = /^[A-Za-z0-9]{8,}$/;

/** Labelled lines after the statement, in the only order the format allows. */
const FIELD_LINES = [
  ['URI', 'uri'],
  ['Version', 'version'],
  ['Chain ID', 'chainId'],
  ['Nonce', 'nonce'],
  ['Issued At', 'issuedAt'],
  ['Expiration Time', 'expirationTime'],
  ['Not Before', 'notBefore'],
  ['Request ID', 'requestId'],
] as const satisfies ReadonlyArray<readonly [string, keyof SiwsFields]>;

/** The exact text a wallet signs for `fields` (wallet-standard `createSignInMessageText`). */
export function buildSiwsMessage(fields: SiwsFields): string {
  // A newline inside a value would let one field forge the lines after it.
  const values = [fields.domain, fields.address, fields.statement, ...FIELD_LINES.map(([, k]) => fields[k])];
  if ([...values, ...(fields.resources ?? [])].some((v) => typeof v === 'string' && /[\r\n]/.test(v))) {
    throw new SiwsFormatError('field contains a line break');
  }
  let text = `${fields.domain} wants you to sign in with your Solana account:\n${fields.address}`;
  if (fields.statement) text += `\n\n${fields.statement}`;
  const lines: string[] = [];
  for (const [label, key] of FIELD_LINES) {
    const value = fields[key];
    if (value) lines.push(`${label}: ${value}`);
  }
  if (fields.resources) lines.push('Resources:', ...fields.resources.map((r) => `- ${r}`));
  if (lines.length > 0) text += `\n\n${lines.join('\n')}`;
  return text;
}

/** Parses SIWS text strictly: fixed order, required fields, canonical spacing; throws otherwise. */
export function parseSiwsMessage(text: string): SiwsFields {
  const lines = text.split('\n');
  const header = HEADER.exec(lines[0] ?? '');
  const domain = header?.groups?.domain;
  if (!domain) throw new SiwsFormatError('header');
  const address = lines[1] ?? '';
  if (!BASE58.test(address)) throw new SiwsFormatError('address');
  if (lines[2] !== '') throw new SiwsFormatError('blank line after address');
  let i = 3;
  let statement: string | undefined;
  // A statement is the one line followed by a blank line; field lines are never blank-separated.
  if (lines[i + 1] === '') {
    statement = lines[i];
    i += 2;
  }
  const found: Partial<Record<(typeof FIELD_LINES)[number][1], string>> = {};
  for (const [label, key] of FIELD_LINES) {
    const line = lines[i];
    if (line?.startsWith(`${label}: `)) {
      const value = line.slice(label.length + 2);
      // Padded or empty values would survive the round trip below, so refuse them here.
      if (value === '' || value.trim() !== value) throw new SiwsFormatError(`${label} value`);
      found[key] = value;
      i++;
    }
  }
  let resources: string[] | undefined;
  if (lines[i] === 'Resources:') {
    resources = [];
    for (i++; lines[i]?.startsWith('- '); i++) resources.push(lines[i]!.slice(2));
  }
  if (i !== lines.length) throw new SiwsFormatError(`unexpected line ${i + 1}`);
  const { uri, version, chainId, nonce, issuedAt, expirationTime, notBefore, requestId } = found;
  if (!uri || !chainId || !nonce || !issuedAt) throw new SiwsFormatError('missing required field');
  if (version !== '1') throw new SiwsFormatError('version');
  if (!NONCE.test(nonce)) throw new SiwsFormatError('nonce');
  for (const time of [issuedAt, expirationTime, notBefore]) {
    if (time !== undefined && !isIsoTime(time)) throw new SiwsFormatError('timestamp');
  }
  const fields: SiwsFields = {
    domain,
    address,
    ...(statement === undefined ? {} : { statement }),
    uri,
    version,
    chainId,
    nonce,
    issuedAt,
    ...(expirationTime === undefined ? {} : { expirationTime }),
    ...(notBefore === undefined ? {} : { notBefore }),
    ...(requestId === undefined ? {} : { requestId }),
    ...(resources === undefined ? {} : { resources }),
  };
  // Round trip: whatever the line walk tolerated (stray spaces, empty values), the signed
  // text must be exactly what these fields produce.
  if (buildSiwsMessage(fields) !== text) throw new SiwsFormatError('not in canonical form');
  return fields;
}

/** True when `signatureBase58` is `addressBase58`'s ed25519 signature of the UTF-8 `message`. */
export function verifySiwsSignature(message: string, signatureBase58: string, addressBase58: string): boolean {
  try {
    const signature = bs58.decode(signatureBase58);
    const publicKey = bs58.decode(addressBase58);
    if (signature.length !== SIGNATURE_BYTES || publicKey.length !== PUBLIC_KEY_BYTES) return false;
    // RFC 8032 strict (`zip215: false`): refuses non-canonical encodings and public keys of
    // small order. tweetnacl's verify accepts those: for the eight small-order addresses
    // (the System Program's 1111...1111 among them) a signature that verifies can be made
    // without any private key, so anyone could sign in as them.
    return ed25519.verify(signature, new TextEncoder().encode(message), publicKey, { zip215: false });
  } catch {
    return false;
  }
}

/** A base58 string that decodes to a 32-byte ed25519 public key. */
export function isSolanaAddress(value: string): boolean {
  if (value.length < 32 || value.length > 44 || !BASE58.test(value)) return false;
  try {
    return bs58.decode(value).length === PUBLIC_KEY_BYTES;
  } catch {
    return false;
  }
}
