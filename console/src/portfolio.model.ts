/** What the portfolio's page and its parts share: chain families, the chart's ranges, how a PnL reads. */
import { type Chain, CHAINS, type TradingPositionsPnlOutput, type TradingWalletCustodialGetOutput } from 'agent-runtime-sdk';

export type Position = TradingPositionsPnlOutput['positions'][number];
export type Family = TradingWalletCustodialGetOutput['chain'];
/** The service's chains of one custodial wallet family, in its order. */
const chainsOf = (family: Family) => CHAINS.filter((entry) => entry.family === family);
/** The chains each custodial wallet family serves, as the service lists them. */
export const FAMILY_CHAINS: Record<Family, Chain[]> = {
  solana: chainsOf('solana').map((entry) => entry.chain),
  evm: chainsOf('evm').map((entry) => entry.chain),
};
/** The display names of each family's chains ("Ethereum, Base, …"). */
export const FAMILY_LABELS: Record<Family, string> = {
  solana: chainsOf('solana')
    .map((entry) => entry.label)
    .join(', '),
  evm: chainsOf('evm')
    .map((entry) => entry.label)
    .join(', '),
};

export const DAY_MS = 86_400_000;
/** The chart's ranges; the service keeps readings for a year or more. */
export const RANGES = [
  { label: '24 hours', ms: DAY_MS },
  { label: '7 days', ms: 7 * DAY_MS },
  { label: '30 days', ms: 30 * DAY_MS },
  { label: '1 year', ms: 365 * DAY_MS },
] as const;
export type Range = (typeof RANGES)[number];

/** The class of a PnL figure: `negative`, `positive`, or none for zero and unknown. */
export const pnlClass = (value: string | null): string =>
  value === null ? '' : Number(value) < 0 ? 'negative' : Number(value) > 0 ? 'positive' : '';
