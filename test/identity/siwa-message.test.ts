import { describe, expect, it } from 'vitest';
import { splitSiwaMessage } from '../../src/identity/onboarding/siwa-message.js';

const REGISTRY = '0x8004A818BFB912233c491871b3d84c89A494BD9e';
const siwe = [
  'agents.test wants you to sign in with your Ethereum account:',
  '0x742d35Cc6634C0532925a3b844Bc9e7595f0bEb0',
  '',
  'Onboard',
  '',
  'URI: http://agents.test',
  'Version: 1',
  'Chain ID: 8453',
  'Nonce: abcdef0123456789',
  'Issued At: 2026-02-05T12:00:00Z',
].join('\n');
const withLines = (header: string) =>
  siwe
    .replace('with your Ethereum account:', `with your ${header} account:`)
    .replace('Version: 1\n', `Version: 1\nAgent ID: 42\nAgent Registry: eip155:84532:${REGISTRY}\n`);

describe('SIWA message form', () => {
  it('a plain EIP-4361 message is left as it is', () => {
    expect(splitSiwaMessage(siwe)).toEqual({ eip4361: siwe });
  });

  it('the SIWA header and lines: the identity, and the EIP-4361 part without them', () => {
    for (const header of ['Agent', 'Ethereum']) {
      const split = splitSiwaMessage(withLines(header));
      expect(split.siwa).toEqual({ agentId: 42n, registry: { chainId: 84532, address: REGISTRY } });
      expect(split.eip4361).toBe(siwe);
    }
  });

  it('half a SIWA message or a malformed line is a 400, never a plain sign-in', () => {
    const oneLine = siwe.replace('Version: 1\n', 'Version: 1\nAgent ID: 42\n');
    const agentHeaderOnly = siwe.replace('Ethereum account', 'Agent account');
    const badRegistry = withLines('Agent').replace(`eip155:84532:${REGISTRY}`, 'solana:mainnet:abc');
    const badId = withLines('Agent').replace('Agent ID: 42', 'Agent ID: forty-two');
    for (const message of [oneLine, agentHeaderOnly, badRegistry, badId]) {
      expect(() => splitSiwaMessage(message)).toThrow(expect.objectContaining({ kind: 'invalid' }));
    }
  });
});
