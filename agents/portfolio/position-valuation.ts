import { formatUsd, significantDecimal } from '../../kernel/vocabulary/amounts.js';
import type { PositionRecord } from './positions.service.js';

/** Prices and average costs: twelve significant digits, as plain decimals (a float's own digits are noise past that). */
const PRICE_DIGITS = 12;

/**
 * Positions valued at the current price: average cost, unrealized PnL against it, and
 * the realized PnL the book kept. USD figures are two-decimal strings (display); the
 * book keeps full precision.
 */
export interface ValuedPosition {
  chain: string;
  token: string;
  symbol: string;
  /** Whole tokens. */
  amount: string;
  priceUsd: string | null;
  valueUsd: string | null;
  avgCostUsd: string;
  costBasisUsd: string;
  realizedPnlUsd: string;
  unrealizedPnlUsd: string | null;
  /** Unrealized PnL as a percentage of the cost basis, two decimals; null without a price or a cost. */
  pnlPct: string | null;
}

export interface PnlTotals {
  valueUsd: string;
  costBasisUsd: string;
  realizedPnlUsd: string;
  unrealizedPnlUsd: string;
}

export type PriceLookup = (chain: string, token: string) => Promise<number | null>;

export async function valuePositions(
  records: PositionRecord[],
  price: PriceLookup,
): Promise<{ positions: ValuedPosition[]; totals: PnlTotals }> {
  const totals = { value: 0, cost: 0, realized: 0, unrealized: 0 };
  const positions = await Promise.all(
    records.map(async (record): Promise<ValuedPosition> => {
      const amount = Number(record.amount);
      const priceUsd = await price(record.chain, record.token);
      const value = priceUsd === null ? null : amount * priceUsd;
      const unrealized = value === null ? null : value - record.costBasisUsd;
      totals.cost += record.costBasisUsd;
      totals.realized += record.realizedPnlUsd;
      if (value !== null) totals.value += value;
      if (unrealized !== null) totals.unrealized += unrealized;
      return {
        chain: record.chain,
        token: record.token,
        symbol: record.symbol,
        amount: record.amount,
        priceUsd: priceUsd === null ? null : significantDecimal(priceUsd, PRICE_DIGITS),
        valueUsd: value === null ? null : formatUsd(value),
        avgCostUsd: amount > 0 ? significantDecimal(record.costBasisUsd / amount, PRICE_DIGITS) : '0',
        costBasisUsd: formatUsd(record.costBasisUsd),
        realizedPnlUsd: formatUsd(record.realizedPnlUsd),
        unrealizedPnlUsd: unrealized === null ? null : formatUsd(unrealized),
        pnlPct: unrealized === null || record.costBasisUsd <= 0 ? null : formatUsd((unrealized / record.costBasisUsd) * 100),
      };
    }),
  );
  return {
    positions,
    totals: {
      valueUsd: formatUsd(totals.value),
      costBasisUsd: formatUsd(totals.cost),
      realizedPnlUsd: formatUsd(totals.realized),
      unrealizedPnlUsd: formatUsd(totals.unrealized),
    },
  };
}
