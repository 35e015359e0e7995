/**
 * Deterministic USD prices for the paper venue: a pure function of (seed, asset, time),
 * so every process with the same seed agrees on every price without sharing state.
 */
import { createHash } from 'node:crypto';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import { PAPER_ASSETS, type PaperToken } from './paper-tokens.js';

/**
 * Layers of the walk: a grid of seeded steps per period, linearly interpolated between
 * grid points so the price is continuous in time. Short periods carry little weight
 * (a minute moves a price by at most ~0.2% of its volatility band), long ones carry the
 * trend. Weights sum to 1, so the log-deviation never exceeds the asset's volatility.
 *
 * Why layers rather than a running sum of per-minute steps: a running sum needs every
 * step since the epoch (O(time) per price) and drifts without bound; this is O(1) per
 * price and stays inside [base·e^-vol, base·e^vol].
 */
const LAYERS: ReadonlyArray<{ periodMs: number; weight: number }> = [
  { periodMs: 60_000, weight: 0.005 },
  { periodMs: 15 * 60_000, weight: 0.015 },
  { periodMs: 4 * 3_600_000, weight: 0.08 },
  { periodMs: 3 * 86_400_000, weight: 0.3 },
  { periodMs: 30 * 86_400_000, weight: 0.6 },
];

const TWO_POW_48 = 2 ** 48;
/** Grid values kept per feed: every asset's current and next points on every layer, many times over. */
const GRID_MEMO_ENTRIES = 4_096;

export interface PaperPriceFeedOptions {
  /** Same seed, same prices on every process; another seed gives another market. */
  seed: string;
  /** "Now" for prices asked without a time. */
  clock: ClockPort;
}

/** Seeded, bounded, continuous random walk around each asset's base price. */
export class PaperPriceFeed {
  /** A price hashes ten grid points, and most of them stay the same for minutes to days. */
  private readonly grid = new Map<string, number>();

  constructor(private readonly options: PaperPriceFeedOptions) {}

  /** USD price of `token` at `atMs` (default: the clock's now). Stablecoins are exactly at their peg. */
  priceUsd(token: PaperToken, atMs: number = this.options.clock.now()): number {
    const asset = PAPER_ASSETS[token.asset];
    const base = asset.basePriceUsd * token.ratio;
    if (asset.volatility === 0) return base;
    return base * Math.exp(asset.volatility * this.noise(token.asset, atMs));
  }

  /** Sum of the interpolated layers, in [-1, 1]. */
  private noise(series: string, atMs: number): number {
    let total = 0;
    for (const { periodMs, weight } of LAYERS) {
      const index = Math.floor(atMs / periodMs);
      const within = (atMs - index * periodMs) / periodMs;
      const from = this.gridValue(series, periodMs, index);
      const to = this.gridValue(series, periodMs, index + 1);
      total += weight * (from + (to - from) * within);
    }
    return total;
  }

  /** A uniform value in [-1, 1) from the hash of (seed, series, layer, index): the same on every process. */
  private gridValue(series: string, periodMs: number, index: number): number {
    const point = `${series}\u0000${periodMs}\u0000${index}`;
    let value = this.grid.get(point);
    if (value === undefined) {
      const digest = createHash('sha256').update(`${this.options.seed}\u0000${point}`).digest();
      value = (digest.readUIntBE(0, 6) / TWO_POW_48) * 2 - 1;
      if (this.grid.size >= GRID_MEMO_ENTRIES) this.grid.clear(); // time moves on: old points are not asked again
      this.grid.set(point, value);
    }
    return value;
  }
}
