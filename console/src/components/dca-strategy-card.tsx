/** One DCA strategy: what it buys and when, why it is held, its stats, and approve, pause, resume, delete. */
import type { TradingDcaStatsOutput, TradingDcaStrategiesListOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { tokens, usd, when, words } from '../format.js';
import { useAction } from '../hooks/use-action.js';
import { toast } from '../toast.js';
import { ActorLink } from './actor-link.js';

type Strategy = TradingDcaStrategiesListOutput['items'][number];
type Stat = TradingDcaStatsOutput['strategies'][number];

/** The service's hold reason while "Hold every order" is on (agents' approval rule words it so). */
const HELD_BY_HOLD_ALL = '(autoApprove off)';

export function DcaStrategyCard(props: {
  agentId: string;
  strategy: Strategy;
  stat: Stat | undefined;
  /** "Hold every order" is off now: a strategy it held still waits, for a reason that no longer holds. */
  holdLifted: boolean;
  onChanged(): void;
  onDelete(): void;
}) {
  const { strategy, stat } = props;
  const act = useAction(
    async (what: string, action: () => Promise<unknown>) => {
      await action();
      toast(`${strategy.name} ${what}`);
    },
    { report: 'toast', settled: props.onChanged },
  );
  const busy = act.busy;
  const run = act.run;
  const o = { agentId: props.agentId };
  return (
    <article class="card" aria-labelledby={`dca-${strategy.strategyId}`}>
      <div class="agent-head">
        <h3 id={`dca-${strategy.strategyId}`}>{strategy.name}</h3>
        <span class={`badge ${strategy.status}`}>{words(strategy.status)}</span>
        <ActorLink type="dca-strategy" id={strategy.strategyId} what={`strategy ${strategy.name}`} />
      </div>
      <p>
        Buys {strategy.outputSymbol} with {strategy.amount} {strategy.inputSymbol} {describeInterval(strategy.interval)} on {strategy.chain}
        .{strategy.maxBuys ? ` At most ${strategy.maxBuys} buys.` : ''}
        {strategy.maxSpend ? ` At most ${strategy.maxSpend} ${strategy.inputSymbol} in all.` : ''}
      </p>
      {strategy.holdReason ? (
        <p class="muted">
          {props.holdLifted && strategy.holdReason.includes(HELD_BY_HOLD_ALL)
            ? 'Held while every order waited for approval. That hold is lifted: approve the strategy to resume its buys.'
            : `Held: ${strategy.holdReason}`}
        </p>
      ) : null}
      {strategy.lastError ? <p class="error small">Last buy failed: {strategy.lastError}</p> : null}
      {stat ? (
        <dl class="totals small">
          <div>
            <dt>Buys</dt>
            <dd>
              {stat.buys}
              {stat.failures ? ` (${stat.failures} failed)` : ''}
            </dd>
          </div>
          <div>
            <dt>Spent</dt>
            <dd>
              {tokens(stat.spent)} {stat.inputSymbol} ({usd(stat.spentUsd)})
            </dd>
          </div>
          <div>
            <dt>Average price</dt>
            <dd>{usd(stat.averagePriceUsd)}</dd>
          </div>
          <div>
            <dt>Current price</dt>
            <dd>{usd(stat.currentPriceUsd)}</dd>
          </div>
          <div>
            <dt>PnL</dt>
            <dd>{usd(stat.pnlUsd)}</dd>
          </div>
          <div>
            <dt>Next buy</dt>
            <dd>{stat.nextRun ? when(stat.nextRun) : '—'}</dd>
          </div>
        </dl>
      ) : null}
      <div class="actions">
        {strategy.status === 'pending_approval' ? (
          <button type="button" disabled={busy} onClick={() => void run('approved', () => client.dca.approve(strategy.name, o))}>
            Approve
          </button>
        ) : null}
        {strategy.status === 'active' ? (
          <button
            type="button"
            class="secondary"
            disabled={busy}
            aria-label={`Pause ${strategy.name}`}
            onClick={() => void run('paused', () => client.dca.pause({ name: strategy.name }, o))}
          >
            Pause
          </button>
        ) : null}
        {strategy.status === 'paused' ? (
          <button
            type="button"
            disabled={busy}
            aria-label={`Resume ${strategy.name}`}
            onClick={() => void run('resumed', () => client.dca.resume({ name: strategy.name }, o))}
          >
            Resume
          </button>
        ) : null}
        <button type="button" class="danger" disabled={busy} aria-label={`Delete ${strategy.name}`} onClick={props.onDelete}>
          Delete
        </button>
      </div>
    </article>
  );
}

/** "every 30 minutes" reads as it is; a cron expression says it is one (in UTC). */
const describeInterval = (interval: string): string =>
  /^(every|daily|weekly|hourly)/i.test(interval.trim()) ? interval : `on the schedule "${interval}" (cron, UTC)`;
