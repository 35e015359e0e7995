import { describe, expect, it } from 'vitest';
import { normalizeOrigin, originAllowed } from '../../src/widget/widget-origins.js';

describe('widget origin matching', () => {
  it('normalizes case, default ports and a trailing slash', () => {
    expect(normalizeOrigin('HTTPS://Shop.Example.COM')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com/')).toBe('https://shop.example.com');
    expect(normalizeOrigin('https://shop.example.com:443')).toBe('https://shop.example.com');
    expect(normalizeOrigin('http://shop.example.com:80/')).toBe('http://shop.example.com');
    expect(normalizeOrigin('http://127.0.0.1:5173')).toBe('http://127.0.0.1:5173');
    expect(normalizeOrigin('https://shop.example.com:8443')).toBe('https://shop.example.com:8443');
  });

  it('refuses what is not an http(s) origin: paths, queries, credentials, other schemes, `null`', () => {
    for (const value of [
      'https://shop.example.com/page',
      'https://shop.example.com/?a=1',
      'https://shop.example.com/#top',
      'https://user:pw@shop.example.com',
      'ftp://shop.example.com',
      'file:///etc/passwd',
      'null',
      'shop.example.com',
      '',
      `https://${'a'.repeat(300)}.com`,
    ])
      expect(normalizeOrigin(value), value).toBeUndefined();
  });

  it('matches scheme, host and port exactly after normalizing', () => {
    const allowed = ['https://shop.example.com', 'http://localhost:3000'];
    expect(originAllowed('https://SHOP.example.com', allowed)).toBe(true);
    expect(originAllowed('https://shop.example.com:443', allowed)).toBe(true);
    expect(originAllowed('http://localhost:3000', allowed)).toBe(true);
    expect(originAllowed('http://shop.example.com', allowed)).toBe(false); // another scheme
    expect(originAllowed('https://shop.example.com:8443', allowed)).toBe(false); // another port
    expect(originAllowed('http://localhost:3001', allowed)).toBe(false);
    expect(originAllowed('https://evil.shop.example.com', allowed)).toBe(false); // no subdomain wildcard
    expect(originAllowed('https://shop.example.com.evil.io', allowed)).toBe(false);
    expect(originAllowed('null', allowed)).toBe(false);
    expect(originAllowed(undefined, allowed)).toBe(false);
  });
});
