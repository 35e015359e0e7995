/**
 * The one classifier of signed messages: what each format's statement (or the SIWA form) says
 * a message was made for, and which routes take it. Messages are built by the formats' own
 * builders (ours for SIWS, viem's for EIP-4361), as clients make them.
 */
import { createSiweMessage } from 'viem/siwe';
import { describe, expect, it } from 'vitest';
import { messagePurpose, requirePurpose, WIDGET_SIGN_IN_STATEMENT, type MessagePurpose } from '../../../src/auth/wallet/message-purpose.js';
import { buildSiwsMessage } from '../../../src/auth/wallet/siws.js';
import { DOMAIN, PUBLIC_URL, evmAccount, solanaWallet } from '../../support/wallet-login-harness.js';

const issuedAt = new Date(Date.UTC(2026, 0, 1));
const siws = (statement?: string) =>
  buildSiwsMessage({
    domain: DOMAIN,
    address: solanaWallet().address,
    ...(statement === undefined ? {} : { statement }),
    uri: PUBLIC_URL,
    version: '1',
    chainId: 'mainnet',
    nonce: 'abcdef0123456789',
    issuedAt: issuedAt.toISOString(),
  });
const siwe = (statement?: string, resources?: string[]) =>
  createSiweMessage({
    domain: DOMAIN,
    address: evmAccount().address,
    uri: PUBLIC_URL,
    version: '1',
    chainId: 1,
    nonce: 'abcdef0123456789',
    issuedAt,
    ...(statement === undefined ? {} : { statement }),
    ...(resources ? { resources } : {}),
  });

describe('messagePurpose', () => {
  it.each([
    ['Claim agent agt_1', 'claim'],
    ['claim agt_1 for my desk', 'claim'],
    [WIDGET_SIGN_IN_STATEMENT, 'widget'],
    ['Onboard an agent at agents.example.com', 'onboarding'],
    ['Onboarding my trading agent', 'onboarding'],
    ['Sign in to agents.example.com', 'sign-in'],
    ['I claim nothing', 'sign-in'],
  ] as const)('%s → %s, in SIWS and EIP-4361 alike', (statement, purpose) => {
    expect(messagePurpose(siws(statement))).toBe(purpose);
    expect(messagePurpose(siwe(statement))).toBe(purpose);
  });

  it('no statement is a sign-in; words elsewhere in the message (a resource) are not a statement', () => {
    expect(messagePurpose(siws())).toBe('sign-in');
    expect(messagePurpose(siwe())).toBe('sign-in');
    expect(messagePurpose(siwe(undefined, ['https://agents.example.com/Claim']))).toBe('sign-in');
  });

  it('the SIWA form is an onboarding, whatever its statement', () => {
    const lines = siwe('Sign in').replace(
      '\nVersion: 1\n',
      '\nVersion: 1\nAgent ID: 7\nAgent Registry: eip155:1:0x1111111111111111111111111111111111111111\n',
    );
    expect(messagePurpose(lines)).toBe('onboarding');
    const header = siwe('Claim agent agt_1').replace('with your Ethereum account:', 'with your Agent account:');
    expect(messagePurpose(header)).toBe('onboarding');
  });
});

describe('requirePurpose', () => {
  const routes: MessagePurpose[] = ['sign-in', 'claim', 'widget', 'onboarding'];
  const taken = (message: string) =>
    routes.filter((route) => {
      try {
        requirePurpose(message, route);
        return true;
      } catch (error) {
        expect(error).toMatchObject({ kind: 'unauthenticated', message: 'Unauthorized' });
        return false;
      }
    });

  it('each purpose is taken by its own route only; a plain message by sign-in and onboarding', () => {
    expect(taken(siws('Claim agent agt_1'))).toEqual(['claim']);
    expect(taken(siws(WIDGET_SIGN_IN_STATEMENT))).toEqual(['widget']);
    expect(taken(siwe('Onboard an agent at agents.example.com'))).toEqual(['onboarding']);
    expect(taken(siwe())).toEqual(['sign-in', 'onboarding']);
  });
});
