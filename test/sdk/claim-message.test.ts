/**
 * The SIWS claim message the SDK signs: the service's sign-in message with the statement
 * replaced (or added when it has none), and nothing a statement could forge.
 */
import { describe, expect, it } from 'vitest';
import { withSiwsStatement } from '../../sdk/src/operator-session.js';

const FIELDS = ['URI: http://svc.test', 'Version: 1', 'Chain ID: mainnet', 'Nonce: abcdefgh12', 'Issued At: 2026-01-01T00:00:00.000Z'];
const HEAD = ['svc.test wants you to sign in with your Solana account:', '11111111111111111111111111111111', ''];

describe('withSiwsStatement', () => {
  it("replaces the service's statement", () => {
    const message = [...HEAD, 'Sign in to the agent service', '', ...FIELDS].join('\n');
    expect(withSiwsStatement(message, 'Claim agent a1')).toBe([...HEAD, 'Claim agent a1', '', ...FIELDS].join('\n'));
  });

  it('adds one to a message without a statement', () => {
    expect(withSiwsStatement([...HEAD, ...FIELDS].join('\n'), 'Claim agent a1')).toBe(
      [...HEAD, 'Claim agent a1', '', ...FIELDS].join('\n'),
    );
  });

  it('refuses a statement with a line break and a text that is not SIWS', () => {
    const message = [...HEAD, ...FIELDS].join('\n');
    expect(() => withSiwsStatement(message, 'Claim agent a1\nNonce: forged')).toThrow('A statement is one line');
    expect(() => withSiwsStatement('not a sign-in message', 'Claim agent a1')).toThrow(TypeError);
  });
});
