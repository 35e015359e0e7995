import { describe, expect, it } from 'vitest';
import { RoutingVenue } from '../../adapters/venues/routing-venue.adapter.js';

describe('RoutingVenue', () => {
  it('refuses a chain without a venue with a rejected promise, never a synchronous throw (callers .catch it)', async () => {
    const venue = new RoutingVenue({});
    const calls = [
      () => venue.findToken('base', 'ETH'),
      () => venue.priceUsd('base', '0x0000000000000000000000000000000000000000'),
      () => venue.balances('base', '0x0000000000000000000000000000000000000001'),
      () => venue.lookup('order-1', 'base'),
    ];
    for (const call of calls) {
      let answer: Promise<unknown> | undefined;
      expect(() => {
        answer = call();
      }).not.toThrow();
      await expect(answer).rejects.toMatchObject({ kind: 'invalid', message: 'No trading venue is configured for chain: base' });
    }
    // What withdrawals' token directory does: a refusal it can catch.
    await expect(venue.findToken('base', 'ETH').catch(() => null)).resolves.toBeNull();
  });
});
