/**
 * An agent's portfolio: its custodial wallets and what they hold, the paper faucet on the paper
 * venue, positions with their PnL, and the value over time as the service recorded it.
 */
import { useEffect, useState } from 'preact/hooks';
import { type Chain, CHAINS, type TradingPositionsPnlOutput, type TradingWalletCustodialGetOutput } from '../../../sdk/src/index.js';
import { client, errorText } from '../api.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { toast } from '../components/toasts.js';
import { type ValuePoint, ValueChart } from '../components/value-chart.js';
import { tokens, usd, when } from '../format.js';
import { useLoad } from '../use-load.js';
import { ScrollRegion } from '../components/scroll-region.js';

type Position = TradingPositionsPnlOutput['positions'][number];
type Family = TradingWalletCustodialGetOutput['chain'];
/** The chains each wallet family serves, as the service lists them. */
const chainsOf = (family: Family): Chain[] => CHAINS.filter((entry) => entry.family === family).map((entry) => entry.chain);
const labelsOf = (family: Family): string =>
  CHAINS.filter((entry) => entry.family === family)
    .map((entry) => entry.label)
    .join(', ');
/** Positions and the value history are read again this often while the page is open. */
const REFRESH_MS = 15_000;
const DAY_MS = 86_400_000;
/** Refreshes between two reads of a range longer than a day (20 × 15 s = 5 min). */
const LONG_RANGE_EVERY = 20;
/** The chart's ranges; the service keeps readings for a year or more. */
const RANGES = [
  { label: '24 hours', ms: DAY_MS },
  { label: '7 days', ms: 7 * DAY_MS },
  { label: '30 days', ms: 30 * DAY_MS },
  { label: '1 year', ms: 365 * DAY_MS },
] as const;
type Range = (typeof RANGES)[number];
/** Points asked for: about two per pixel column of the chart on a wide screen. */
const CHART_POINTS = 300;

export function PortfolioPage({ agentId, refreshKey }: { agentId: string; refreshKey: number }) {
  const [bump, setBump] = useState(0);
  // A deposit, withdrawal or new wallet here: every range reads its history again at once, not at its next turn.
  const [changes, setChanges] = useState(0);
  const [range, setRange] = useState<Range>(RANGES[1]);
  const pnl = useLoad(() => client.trading.pnl({ agentId }), [agentId, bump, refreshKey]);
  const history = useLoad(
    () => client.trading.history({ from: new Date(Date.now() - range.ms).toISOString(), limit: CHART_POINTS }, { agentId }),
    // A long range changes little in 15 s: read again every 5 minutes.
    [agentId, range, range.ms <= DAY_MS ? bump : Math.floor(bump / LONG_RANGE_EVERY), refreshKey, changes],
  );
  const wallets = useLoad(
    async () => Promise.all((['solana', 'evm'] as const).map((chain) => client.wallets.custodial({ chain }, { agentId }))),
    [agentId, bump],
  );
  const venue = useLoad(() => client.trading.evmStatus(), []);

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
                <dd class={sign(pnl.data.totals.unrealizedPnlUsd)}>{usd(pnl.data.totals.unrealizedPnlUsd)}</dd>
              </div>
              <div>
                <dt>Realized PnL</dt>
                <dd class={sign(pnl.data.totals.realizedPnlUsd)}>{usd(pnl.data.totals.realizedPnlUsd)}</dd>
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
                positions={positions.filter((p) => (chainsOf(wallet.chain) as string[]).includes(p.chain))}
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

function ChartRanges(props: { range: Range; onChange(range: Range): void }) {
  return (
    <fieldset class="chart-ranges">
      <legend class="sr-only">Chart range</legend>
      {RANGES.map((range) => (
        <button
          key={range.label}
          type="button"
          class="secondary"
          aria-pressed={range === props.range}
          onClick={() => props.onChange(range)}
        >
          {range.label}
        </button>
      ))}
    </fieldset>
  );
}

const sign = (value: string | null): string => (value === null ? '' : Number(value) < 0 ? 'negative' : Number(value) > 0 ? 'positive' : '');

function PositionTable({ positions }: { positions: Position[] }) {
  return (
    <ScrollRegion class="table-wrap" label="Positions">
      <table class="stacked">
        <caption class="sr-only">Positions and their profit and loss</caption>
        <thead>
          <tr>
            <th scope="col">Token</th>
            <th scope="col">Amount</th>
            <th scope="col">Price</th>
            <th scope="col">Value</th>
            <th scope="col">Average cost</th>
            <th scope="col">Unrealized</th>
            <th scope="col">Realized</th>
          </tr>
        </thead>
        <tbody>
          {positions.map((p) => (
            <tr key={`${p.chain}:${p.token}`}>
              <th scope="row" data-label="Token">
                {p.symbol} <span class="muted small">{p.chain}</span>
              </th>
              <td title={p.amount} data-label="Amount">
                {tokens(p.amount)}
              </td>
              <td data-label="Price">{usd(p.priceUsd)}</td>
              <td data-label="Value">{usd(p.valueUsd)}</td>
              <td data-label="Average cost">{usd(p.avgCostUsd)}</td>
              <td class={sign(p.unrealizedPnlUsd)} data-label="Unrealized">
                {usd(p.unrealizedPnlUsd)}
                {p.pnlPct !== null ? ` (${Number(p.pnlPct).toFixed(2)} %)` : ''}
              </td>
              <td class={sign(p.realizedPnlUsd)} data-label="Realized">
                {usd(p.realizedPnlUsd)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollRegion>
  );
}

function WalletCard(props: {
  agentId: string;
  wallet: TradingWalletCustodialGetOutput;
  positions: Position[];
  paper: boolean;
  onChanged(): void;
}) {
  const { wallet } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const title = wallet.chain === 'solana' ? 'Solana wallet' : `EVM wallet (${labelsOf('evm')})`;
  const create = async () => {
    setBusy(true);
    setError(undefined);
    try {
      await client.wallets.ensureCustodial({ chain: wallet.chain }, { agentId: props.agentId });
      toast(`${title} created`);
      props.onChanged();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  const held = props.positions.filter((p) => p.amount !== '0');
  return (
    <section class="card" aria-label={title}>
      <h3>{title}</h3>
      {wallet.wallet ? (
        <>
          <p class="mono" title="Address">
            {wallet.wallet.address}
          </p>
          {held.length === 0 ? (
            <Empty>Empty.</Empty>
          ) : (
            <ul class="balances" aria-label={`Balances of the ${title}`}>
              {held.map((p) => (
                <li key={`${p.chain}:${p.token}`}>
                  <span>
                    {tokens(p.amount)} {p.symbol}
                    {wallet.chain === 'evm' ? <span class="muted small"> on {p.chain}</span> : null}
                  </span>
                  <span class="muted">{usd(p.valueUsd)}</span>
                </li>
              ))}
            </ul>
          )}
          {props.paper ? <Faucet agentId={props.agentId} family={wallet.chain} onFunded={props.onChanged} /> : null}
        </>
      ) : (
        <>
          <Empty>No custodial wallet yet.</Empty>
          <button type="button" disabled={busy} onClick={() => void create()}>
            {busy ? 'Creating…' : `Create the ${title}`}
          </button>
        </>
      )}
      <ErrorText text={error} />
    </section>
  );
}

/** Paper venue only: play money into the custodial wallet. */
function Faucet(props: { agentId: string; family: Family; onFunded(): void }) {
  const chains = chainsOf(props.family);
  const [chain, setChain] = useState(chains[0] ?? 'solana');
  const [token, setToken] = useState('USDC');
  const [amount, setAmount] = useState('1000');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const fund = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const funded = await client.trading.paperFaucet({ chain, token: token.trim(), amount: amount.trim() }, { agentId: props.agentId });
      toast(`Added ${funded.credited} ${funded.symbol} (paper); balance ${funded.balance}`);
      props.onFunded();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  const id = `faucet-${props.family}`;
  return (
    <form class="faucet" onSubmit={fund} aria-labelledby={`${id}-title`}>
      <h4 id={`${id}-title`}>Paper faucet</h4>
      <div class="row">
        {chains.length > 1 ? (
          <label>
            Chain
            <select value={chain} onChange={(event) => setChain(event.currentTarget.value as typeof chain)}>
              {chains.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label>
          Token
          <input value={token} required maxLength={64} onInput={(event) => setToken(event.currentTarget.value)} />
        </label>
        <label>
          Amount
          <input value={amount} required inputMode="decimal" onInput={(event) => setAmount(event.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy}>
          {busy ? 'Adding…' : 'Add test funds'}
        </button>
      </div>
      <ErrorText text={error} />
    </form>
  );
}
