import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../support/manual-clock.adapter.js';
import { BreakerVenue } from '../../../adapters/resilience/breaker-venue.adapter.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import type { Chain, ExecutionResult, Quote, TokenInfo, VenueHealth, VenuePort } from '../../../kernel/ports/venue.port.js';

/** A venue whose every call does what `next` says: answer, fail, or take a while. */
class ScriptedVenue implements VenuePort {
  readonly name = 'scripted';
  readonly chains: readonly Chain[] = ['solana', 'base'];
  calls: string[] = [];
  next: { fail?: AppError | Error; delayMs?: number } = {};

  private async act<T>(method: string, value: T): Promise<T> {
    this.calls.push(method);
    if (this.next.delayMs) await new Promise((resolve) => setTimeout(resolve, this.next.delayMs));
    if (this.next.fail) throw this.next.fail;
    return value;
  }

  findToken = (_chain: Chain, symbol: string) =>
    this.act<TokenInfo | null>('findToken', { chain: 'solana', address: 'mint', symbol, name: symbol, decimals: 6 });
  searchTokens = () => this.act<TokenInfo[]>('searchTokens', []);
  priceUsd = () => this.act<number | null>('priceUsd', 1.5);
  quote = () =>
    this.act<Quote>('quote', {
      chain: 'solana',
      inputMint: 'a',
      outputMint: 'b',
      amountIn: '1',
      expectedOut: '2',
      minOut: '1',
      spotOut: '2',
      priceImpactBps: 0,
      feeAmount: '0',
      venue: 'scripted',
      expiresAt: 1,
    });
  execute = () => this.act<ExecutionResult>('execute', { status: 'filled', filledOut: '2', txSignature: 'sig', at: 1 });
  lookup = () => this.act<ExecutionResult | null>('lookup', null);
  balances = () => this.act<Record<string, string>>('balances', { mint: '5' });
  health = (chain: Chain) => this.act<VenueHealth>('health', { chain, reachable: true, latencyMs: 1 });
}

const quoteRequest = { chain: 'solana' as const, inputMint: 'a', outputMint: 'b', amountIn: '1', slippageBps: 50 };

async function failure(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

function setup(options: { timeoutMs?: number; executeTimeoutMs?: number } = {}) {
  const inner = new ScriptedVenue();
  const clock = new ManualClock();
  const venue = new BreakerVenue(inner, {
    threshold: 2,
    openMs: 60_000,
    timeoutMs: options.timeoutMs ?? 1_000,
    clock,
    ...(options.executeTimeoutMs ? { executeTimeoutMs: options.executeTimeoutMs } : {}),
  });
  return { inner, clock, venue };
}

describe('BreakerVenue', () => {
  it('passes every call and its answer through, keeping the venue name and chains', async () => {
    const { inner, venue } = setup();
    expect(venue.name).toBe('scripted');
    expect(venue.chains).toEqual(['solana', 'base']);
    expect((await venue.findToken('solana', 'USDC'))?.symbol).toBe('USDC');
    expect(await venue.searchTokens('x', { limit: 5 })).toEqual([]);
    expect(await venue.priceUsd('solana', 'mint')).toBe(1.5);
    expect((await venue.quote(quoteRequest)).expectedOut).toBe('2');
    expect(await venue.lookup('order-1', 'solana')).toBeNull();
    expect(await venue.balances('solana', 'addr')).toEqual({ mint: '5' });
    expect((await venue.health('solana')).reachable).toBe(true);
    expect(inner.calls).toEqual(['findToken', 'searchTokens', 'priceUsd', 'quote', 'lookup', 'balances', 'health']);
    expect(venue.breakerState()).toBe('closed');
  });

  it('opens on provider failures across methods, then refuses every call without reaching the venue', async () => {
    const { inner, venue } = setup();
    inner.next = { fail: new AppError('PROVIDER_UNAVAILABLE', 'Provider unavailable: scripted (HTTP 500)') };
    await failure(venue.quote(quoteRequest));
    await failure(venue.priceUsd('solana', 'mint'));
    expect(venue.breakerState()).toBe('open');
    inner.next = {};
    const error = await failure(venue.findToken('solana', 'SOL'));
    expect(error.message).toBe('Circuit breaker open for provider: scripted');
    expect(error.code).toBe('CIRCUIT_BREAKER_OPEN');
    expect(error.retryAfterSeconds).toBe(60);
    expect(inner.calls).toEqual(['quote', 'priceUsd']);
    // The status route reads health: an open circuit is "unreachable", never a throw.
    expect(await venue.health('base')).toEqual({ chain: 'base', reachable: false, error: 'Circuit breaker open for provider: scripted' });
  });

  it('leaves the circuit closed on business refusals', async () => {
    const { inner, venue } = setup();
    inner.next = { fail: new AppError('TOKEN_NOT_FOUND', 'Token not found: xyz') };
    for (let i = 0; i < 5; i++) expect((await failure(venue.quote(quoteRequest))).code).toBe('TOKEN_NOT_FOUND');
    expect(venue.breakerState()).toBe('closed');
  });

  it('half-opens after the window and closes on a successful probe', async () => {
    const { inner, clock, venue } = setup();
    inner.next = { fail: new TypeError('fetch failed') };
    // A library error no adapter translated counts as the provider being unwell.
    await expect(venue.balances('solana', 'a')).rejects.toThrow('fetch failed');
    await expect(venue.balances('solana', 'a')).rejects.toThrow('fetch failed');
    expect(venue.breakerState()).toBe('open');
    await clock.advance(60_000);
    expect(venue.breakerState()).toBe('half_open');
    inner.next = {};
    expect(await venue.balances('solana', 'a')).toEqual({ mint: '5' });
    expect(venue.breakerState()).toBe('closed');
  });

  it('gives execute its own, longer budget than the per-call timeout', async () => {
    const { inner, venue } = setup({ timeoutMs: 20, executeTimeoutMs: 2_000 });
    inner.next = { delayMs: 60 };
    expect((await venue.execute({} as never)).status).toBe('filled');
    const error = await failure(venue.quote(quoteRequest));
    expect(error.message).toBe('Provider unavailable: scripted (timed out after 20 ms)');
  });

  it('opens on a provider failing every quote, however many token lookups (answered by the venue itself) succeed in between', async () => {
    const { inner, venue } = setup();
    for (let i = 0; i < 2; i++) {
      expect(await venue.findToken('solana', 'USDC')).not.toBeNull();
      inner.next = { fail: new AppError('PROVIDER_UNAVAILABLE', 'Provider unavailable: scripted (HTTP 500)') };
      await failure(venue.quote(quoteRequest));
      inner.next = {};
    }
    expect(venue.breakerState()).toBe('open');
  });

  it('counts a failed token lookup, and an unreachable health probe on a served chain, as provider failures', async () => {
    const { inner, venue } = setup();
    inner.next = { fail: new AppError('PROVIDER_UNAVAILABLE', 'Provider unavailable: scripted (HTTP 500)') };
    await failure(venue.searchTokens('x', { limit: 5 }));
    inner.next = {};
    inner.health = async (chain: Chain) => ({ chain, reachable: false, error: 'rpc down' });
    expect(await venue.health('solana')).toEqual({ chain: 'solana', reachable: false, error: 'rpc down' });
    expect(venue.breakerState()).toBe('open');
    // A chain the venue does not serve says nothing about its provider.
    const other = setup();
    other.inner.health = async (chain: Chain) => ({ chain, reachable: false, error: 'no RPC for ethereum' });
    for (let i = 0; i < 3; i++) await other.venue.health('ethereum');
    expect(other.venue.breakerState()).toBe('closed');
  });

  it('lets only a call that reached the provider close the circuit after its open window', async () => {
    const { inner, clock, venue } = setup();
    inner.next = { fail: new AppError('PROVIDER_UNAVAILABLE', 'Provider unavailable: scripted (HTTP 500)') };
    for (let i = 0; i < 2; i++) await failure(venue.quote(quoteRequest));
    inner.next = {};
    await clock.advance(60_000);
    expect(await venue.findToken('solana', 'USDC')).not.toBeNull();
    expect(venue.breakerState()).toBe('half_open');
    expect((await venue.quote(quoteRequest)).expectedOut).toBe('2');
    expect(venue.breakerState()).toBe('closed');
  });
});
