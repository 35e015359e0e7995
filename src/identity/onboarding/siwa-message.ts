/**
 * The SIWA form of a sign-in message (Sign In With Agent, for ERC-8004 identities): EIP-4361
 * plus two lines after `Version`, `Agent ID: <tokenId>` and `Agent Registry:
 * eip155:<chainId>:<registry>`. SIWA's own header says "your Agent account"; we also
 * accept the EIP-4361 header with the two lines. The EIP-4361 part (header normalised, the
 * two lines removed) goes to the sign-in parser; the signature is checked over the text as sent.
 */
import { malformedMessageError } from '../../auth/wallet/wallet-auth.errors.js';
import type { RegistryRef } from '../../../kernel/ports/agent-registry.port.js';

export interface SiwaIdentity {
  /** The ERC-721 token id on the registry. */
  agentId: bigint;
  registry: RegistryRef;
}

export interface SplitMessage {
  /** What the EIP-4361 parser reads. */
  eip4361: string;
  /** Present for the SIWA form. */
  siwa?: SiwaIdentity;
}

const AGENT_HEADER = ' wants you to sign in with your Agent account:';
const ETHEREUM_HEADER = ' wants you to sign in with your Ethereum account:';
const AGENT_ID = /^Agent ID: (\d{1,78})$/;
const AGENT_REGISTRY = /^Agent Registry: eip155:(\d{1,12}):(0x[0-9a-fA-F]{40})$/;

/** Splits a SIWE or SIWA message; 400 when only one of the two SIWA lines is there, or either is malformed. */
export function splitSiwaMessage(message: string): SplitMessage {
  const lines = message.split('\n');
  const idAt = lines.findIndex((line) => line.startsWith('Agent ID:'));
  const registryAt = lines.findIndex((line) => line.startsWith('Agent Registry:'));
  const agentHeader = lines[0]?.endsWith(AGENT_HEADER) ?? false;
  if (idAt === -1 && registryAt === -1 && !agentHeader) return { eip4361: message };
  const id = idAt === -1 ? null : AGENT_ID.exec(lines[idAt]!);
  const registry = registryAt === -1 ? null : AGENT_REGISTRY.exec(lines[registryAt]!);
  if (!id || !registry) throw malformedMessageError('SIWE', 'SIWA needs both `Agent ID` and `Agent Registry: eip155:<chainId>:<address>`');
  const kept = lines.filter((_line, index) => index !== idAt && index !== registryAt);
  if (agentHeader) kept[0] = kept[0]!.slice(0, -AGENT_HEADER.length) + ETHEREUM_HEADER;
  return {
    eip4361: kept.join('\n'),
    siwa: { agentId: BigInt(id[1]!), registry: { chainId: Number(registry[1]), address: registry[2]! } },
  };
}
