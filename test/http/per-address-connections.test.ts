import { describe, expect, it } from 'vitest';
import { clientBlockOf } from '../../src/http/per-address-connections.js';

describe('clientBlockOf', () => {
  it('counts IPv4 (mapped or not) by address and IPv6 by its /64', () => {
    expect(clientBlockOf('127.0.0.2')).toBe('127.0.0.2');
    expect(clientBlockOf('::ffff:10.1.2.3')).toBe('10.1.2.3');
    expect(clientBlockOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientBlockOf('2001:0db8:0001:0002:ffff:1:2:3')).toBe('2001:db8:1:2::/64');
    expect(clientBlockOf('2001:db8::5')).toBe('2001:db8:0:0::/64');
    expect(clientBlockOf('::1')).toBe('0:0:0:0::/64');
  });
});
