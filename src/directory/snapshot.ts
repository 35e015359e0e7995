import { formatUsd } from '../../kernel/vocabulary/amounts.js';
import type { Snapshot } from './card.schemas.js';
import type { CardSubject } from './card.records.js';

/** The portfolio a snapshot is drawn from (the trading module's status reader and its venue's market data). */
export interface PortfolioSource {
  portfolio(
    subject: CardSubject,
  ): Promise<{ positions: Array<{ chain: string; token: string; symbol?: string; valueUsd?: string }>; openOrders: number }>;
  /** The token's price change over 24 hours, percent; null when the venue has no market data for it. */
  change24hPct(chain: string, token: string): Promise<number | null>;
}

/**
 * Significant digits of public USD figures: an exact balance can be matched against chain
 * data to find the wallet behind an agent; three digits tell the size and not the wallet.
 */
const USD_DIGITS = 3;

/** `value` to USD_DIGITS significant digits, written with cents. */
function roundedUsd(value: number): string {
  return formatUsd(value > 0 ? Number(value.toPrecision(USD_DIGITS)) : 0);
}

/**
 * A published card's snapshot: total value, holdings by symbol with their share, the 24 h change
 * of what it holds now (each holding at its venue's 24 h price change; null when no holding
 * has market data), open orders. No wallet address, order id, token amount or exact value.
 * Positions without a price are left out (they add nothing to the total). `asOf` is `SnapshotDates`'.
 */
export async function snapshotOf(publicId: string, subject: CardSubject, source: PortfolioSource): Promise<Omit<Snapshot, 'asOf'>> {
  const portfolio = await source.portfolio(subject);
  const priced = portfolio.positions.flatMap((p) =>
    p.valueUsd !== undefined && Number(p.valueUsd) > 0 ? [{ ...p, value: Number(p.valueUsd) }] : [],
  );
  const total = priced.reduce((sum, p) => sum + p.value, 0);
  // Value 24 h ago of each holding with market data: now / (1 + change).
  let then = 0;
  let nowKnown = 0;
  for (const p of priced) {
    const change = await source.change24hPct(p.chain, p.token);
    if (change === null || change <= -100) continue;
    nowKnown += p.value;
    then += p.value / (1 + change / 100);
  }
  return {
    publicId,
    valueUsd: roundedUsd(total),
    positions: priced
      .sort((a, b) => b.value - a.value)
      .map((p) => ({
        symbol: p.symbol ?? p.token,
        valueUsd: roundedUsd(p.value),
        share: total > 0 ? Math.round((p.value / total) * 1000) / 1000 : 0,
      })),
    pnlPct24h: then > 0 ? formatUsd(((nowKnown - then) / then) * 100) : null,
    openOrders: portfolio.openOrders,
  };
}

/** Snapshots whose `asOf` this process remembers; past it the oldest is forgotten (its next read starts a new `asOf`). */
const MAX_REMEMBERED = 10_000;

/**
 * `asOf` of a snapshot: the moment this process first saw its figures as they are now. A
 * read that finds the same figures answers the same `asOf`, so the same body and ETag, and
 * `If-None-Match` revalidation hits until a figure changes (the request time would change
 * every answer). Per process: two replicas may date the same figures differently.
 */
export class SnapshotDates {
  private readonly seen = new Map<string, { figures: string; asOf: string }>();

  dated(figures: Omit<Snapshot, 'asOf'>, now: number): Snapshot {
    const key = JSON.stringify(figures);
    const known = this.seen.get(figures.publicId);
    const asOf = known?.figures === key ? known.asOf : new Date(now).toISOString();
    // Re-inserted on every read: the map's order is then least recently read first.
    this.seen.delete(figures.publicId);
    this.seen.set(figures.publicId, { figures: key, asOf });
    if (this.seen.size > MAX_REMEMBERED) this.seen.delete(this.seen.keys().next().value as string);
    return { ...figures, asOf };
  }
}
