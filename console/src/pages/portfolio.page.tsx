/**
 * An agent's portfolio: its custodial wallets and what they hold, the paper faucet on the paper
 * venue, positions with their PnL, and the value over time as the service recorded it.
 */
import { useEffect, useState } from 'preact/hooks';
import type { TradingPositionsPnlOutput } from 'agent-runtime-sdk';
import { ChartRanges } from '../components/chart-ranges.js';
import { PositionTable } from '../components/position-table.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { type ValuePoint, ValueChart } from '../components/value-chart.js';
import { WalletCard } from '../components/wallet-card.js';
import { useCustodialWallets, useEvmVenue, usePnl, useValueHistory } from '../queries/trading.queries.js';
import { usd, when } from '../format.js';
import { DAY_MS, FAMILY_CHAINS, pnlClass, RANGES, type Range } from '../portfolio.model.js';

/** Positions and the value history are read again this often while the page is open. */
const REFRESH_MS = 15_000;
/** Refreshes between two reads of a range longer than a day (20 × 15 s = 5 min). */
const LONG_RANGE_EVERY = 20;
/** Points asked for: about two per pixel column of the chart on a wide screen. */
const CHART_POINTS = 300;

export function PortfolioPage({ agentId, refreshKey }: { agentId: string; refreshKey: number }) {
  const [bump, setBump] = useState(0);
  // A deposit, withdrawal or new wallet here: every range reads its history again at once, not at its next turn.
  const [changes, setChanges] = useState(0);
  const [range, setRange] = useState<Range>(RANGES[1]);
  const pnl = usePnl(agentId, bump + refreshKey);
  const history = useValueHistory(
    agentId,
    range.ms,
    CHART_POINTS,
    // A long range changes little in 15 s: read again every 5 minutes.
    `${range.ms <= DAY_MS ? bump : Math.floor(bump / LONG_RANGE_EVERY)}:${refreshKey}:${changes}`,
  );
  const wallets = useCustodialWallets(agentId, bump);
  const venue = useEvmVenue();

  useEffect(() => {
    const timer = setInterval(() => setBump((n) => n + 1), REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  const points = chartPoints(history.data?.points ?? [], pnl.data);
  const intervalMinutes = Math.round((history.data?.intervalSeconds ?? 0) / 60);
  const refresh = () => {
    setBump((n) => n + 1);
    setChanges((n) => n + 1);
  };
  const positions = pnl.data?.positions ?? [];
  const isPaper = venue.data?.venue === 'paper';

  return (
    <>
      <section aria-labelledby="value-title" class="card">
        <h2 id="value-title">Value</h2>
        {pnl.loading && !pnl.data ? <Loading what="positions" /> : null}
        <ErrorText text={pnl.error} />
        {pnl.data ? (
          <>
            <dl class="totals">
              <div>
                <dt>Value</dt>
                <dd data-testid="total-value">{usd(pnl.data.totals.valueUsd)}</dd>
              </div>
              <div>
                <dt>Cost basis</dt>
                <dd>{usd(pnl.data.totals.costBasisUsd)}</dd>
              </div>
              <div>
                <dt>Unrealized PnL</dt>
                <dd class={pnlClass(pnl.data.totals.unrealizedPnlUsd)}>{usd(pnl.data.totals.unrealizedPnlUsd)}</dd>
              </div>
              <div>
                <dt>Realized PnL</dt>
                <dd class={pnlClass(pnl.data.totals.realizedPnlUsd)}>{usd(pnl.data.totals.realizedPnlUsd)}</dd>
              </div>
            </dl>
            <ChartRanges range={range} onChange={setRange} />
            <ErrorText text={history.error} />
            {history.data && points.length === 0 ? (
              <Empty>
                No value recorded in the last {range.label}. The service takes a reading after each trade, deposit and withdrawal.
              </Empty>
            ) : (
              <ValueChart points={points} rangeLabel={range.label} />
            )}
            <p class="muted small">
              As of {when(pnl.data.asOf)}. The service records the value after each trade, deposit and withdrawal
              {intervalMinutes > 0
                ? `, and every ${intervalMinutes} minute${intervalMinutes === 1 ? '' : 's'} while something is held`
                : ''}
              .
            </p>
          </>
        ) : null}
      </section>

      <section aria-labelledby="wallets-title">
        <h2 id="wallets-title">Wallets</h2>
        {wallets.loading && !wallets.data ? <Loading what="wallets" /> : null}
        <ErrorText text={wallets.error} />
        {wallets.data ? (
          <div class="wallet-grid">
            {wallets.data.map((wallet) => (
              <WalletCard
                key={wallet.chain}
                agentId={agentId}
                wallet={wallet}
                positions={positions.filter((p) => (FAMILY_CHAINS[wallet.chain] as string[]).includes(p.chain))}
                paper={isPaper}
                onChanged={refresh}
              />
            ))}
          </div>
        ) : null}
      </section>

      <section aria-labelledby="positions-title">
        <h2 id="positions-title">Positions</h2>
        {pnl.data && positions.length === 0 ? <Empty>No positions yet. Fund a wallet, then trade from the Trading page.</Empty> : null}
        {positions.length > 0 ? <PositionTable positions={positions} /> : null}
      </section>
    </>
  );
}

/** The service's readings, then the value read just now, so the line ends on what the totals above say. */
function chartPoints(
  recorded: ReadonlyArray<{ at: string; valueUsd: string; reason: 'change' | 'periodic' }>,
  current: TradingPositionsPnlOutput | undefined,
): ValuePoint[] {
  const points: ValuePoint[] = recorded.map((p) => ({ at: Date.parse(p.at), valueUsd: Number(p.valueUsd), reason: p.reason }));
  const last = points[points.length - 1];
  // No reading in the range yet (the one a deposit takes may still be on its way): a value held now is still a point.
  if (current && !last && Number(current.totals.valueUsd) > 0)
    points.push({ at: Date.parse(current.asOf), valueUsd: Number(current.totals.valueUsd), reason: 'now' });
  else if (current && last && Date.parse(current.asOf) > last.at)
    points.push({ at: Date.parse(current.asOf), valueUsd: Number(current.totals.valueUsd), reason: 'now' });
  return points;
}
