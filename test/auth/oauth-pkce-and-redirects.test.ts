import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { challengeOf, isCodeChallenge, verifierMatches } from '../../src/auth/oauth/pkce.js';
import { redirectHostOf, redirectUriAllowed, redirectUriProblem } from '../../src/auth/oauth/redirect-uri.js';
import { grantIdOf, newGrantId, newOAuthSecret } from '../../src/auth/oauth/oauth-token-format.js';
import { requestedScope } from '../../src/auth/oauth/oauth-grants.service.js';

describe('PKCE (S256 only)', () => {
  // RFC 7636 appendix B.
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('matches the RFC 7636 example, and the challenge is SHA-256 in base64url', () => {
    expect(challengeOf(verifier)).toBe(challenge);
    expect(challengeOf(verifier)).toBe(createHash('sha256').update(verifier).digest('base64url'));
    expect(verifierMatches(verifier, challenge)).toBe(true);
  });

  it('refuses another verifier, the plain method (verifier as its own challenge) and malformed ones', () => {
    expect(verifierMatches(`${verifier.slice(0, -1)}A`, challenge)).toBe(false);
    const plain = 'a'.repeat(43);
    expect(verifierMatches(plain, plain)).toBe(false);
    expect(verifierMatches('short', challengeOf('short'))).toBe(false);
    expect(verifierMatches('x'.repeat(129), challengeOf('x'.repeat(129)))).toBe(false);
    expect(verifierMatches(`${'a'.repeat(42)} `, challengeOf(`${'a'.repeat(42)} `))).toBe(false);
    expect(isCodeChallenge(challenge)).toBe(true);
    expect(isCodeChallenge(`${challenge}=`)).toBe(false);
  });
});

describe('redirect URIs', () => {
  it('registers https, loopback http and private-use schemes; refuses the rest', () => {
    expect(redirectUriProblem('https://client.example/cb')).toBeUndefined();
    expect(redirectUriProblem('http://127.0.0.1:8080/cb')).toBeUndefined();
    expect(redirectUriProblem('http://localhost/cb')).toBeUndefined();
    expect(redirectUriProblem('com.example.app:/cb')).toBeUndefined();
    expect(redirectUriProblem('http://client.example/cb')).toMatch(/https/);
    expect(redirectUriProblem('https://client.example/cb#frag')).toMatch(/fragment/);
    expect(redirectUriProblem('javascript:alert(1)')).toBeDefined();
    expect(redirectUriProblem('https://user:pw@client.example/cb')).toMatch(/credentials/);
    expect(redirectUriProblem('/relative')).toMatch(/absolute/);
  });

  it('matches exactly, except the port of a loopback redirect', () => {
    const registered = ['https://client.example/cb', 'http://127.0.0.1/callback'];
    expect(redirectUriAllowed('https://client.example/cb', registered)).toBe(true);
    expect(redirectUriAllowed('https://client.example/cb/', registered)).toBe(false);
    expect(redirectUriAllowed('https://client.example/cb?x=1', registered)).toBe(false);
    expect(redirectUriAllowed('https://client.example:8443/cb', registered)).toBe(false);
    expect(redirectUriAllowed('http://127.0.0.1:53817/callback', registered)).toBe(true);
    expect(redirectUriAllowed('http://127.0.0.1:53817/other', registered)).toBe(false);
    expect(redirectUriAllowed('http://localhost:53817/callback', registered)).toBe(false);
    expect(redirectUriAllowed('not a url', registered)).toBe(false);
  });

  it('names the host a person sees on the consent page', () => {
    expect(redirectHostOf('https://client.example:8443/cb')).toBe('client.example:8443');
    expect(redirectHostOf('com.example.app:/cb')).toBe('com.example.app');
  });
});

describe('token shapes and requested scopes', () => {
  it('a secret names its grant only for its own kind', () => {
    const grantId = newGrantId();
    const access = newOAuthSecret('access', grantId);
    expect(grantIdOf('access', access)).toBe(grantId);
    expect(grantIdOf('refresh', access)).toBeUndefined();
    expect(grantIdOf('access', `${access}x`)).toBeUndefined();
    expect(grantIdOf('code', newOAuthSecret('code', grantId))).toBe(grantId);
  });

  it('takes the highest scope named, ignores offline_access, refuses unknown ones', () => {
    expect(requestedScope(undefined)).toBeUndefined();
    expect(requestedScope('read trade')).toBe('trade');
    expect(requestedScope('manage offline_access')).toBe('manage');
    expect(requestedScope('offline_access')).toBeUndefined();
    expect(requestedScope('read admin')).toBeNull();
  });
});
