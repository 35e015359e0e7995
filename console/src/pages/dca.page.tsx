/**
 * An agent's DCA strategies: create one (with what an interval may say), pause, resume, approve
 * a held one, delete; and the stats: what was spent, the average price against the current one.
 */
import { useState } from 'preact/hooks';
import { type Chain, CHAINS, type TradingDcaStatsOutput, type TradingDcaStrategiesListOutput } from '../../../sdk/src/index.js';
import { client, errorText } from '../api.js';
import { Modal } from '../components/modal.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { toast } from '../components/toasts.js';
import { tokens, usd, when, words } from '../format.js';
import { useLoad } from '../use-load.js';

type Strategy = TradingDcaStrategiesListOutput['items'][number];
type Stat = TradingDcaStatsOutput['strategies'][number];

export function DcaPage({ agentId, refreshKey }: { agentId: string; refreshKey: number }) {
  const [bump, setBump] = useState(0);
  const reload = () => setBump((n) => n + 1);
  const strategies = useLoad(() => client.dca.list({ limit: 200 }, { agentId }), [agentId, bump, refreshKey]);
  const stats = useLoad(() => client.dca.stats({ agentId }), [agentId, bump, refreshKey]);
  const profile = useLoad(() => client.config.orderProfile({ agentId }), [agentId, bump, refreshKey]);
  const [deleting, setDeleting] = useState<Strategy | undefined>(undefined);
  const live = strategies.data?.items.filter((s) => s.status !== 'deleted') ?? [];
  const statOf = (name: string): Stat | undefined => stats.data?.strategies.find((s) => s.name === name);

  return (
    <>
      <CreateStrategy agentId={agentId} onCreated={reload} />
      <section aria-labelledby="strategies-title">
        <h2 id="strategies-title">Strategies</h2>
        {strategies.loading && !strategies.data ? <Loading what="strategies" /> : null}
        <ErrorText text={strategies.error ?? stats.error} />
        {strategies.data && live.length === 0 ? <Empty>No DCA strategy yet. Create one above.</Empty> : null}
        <div class="strategy-list">
          {live.map((strategy) => (
            <StrategyCard
              key={strategy.strategyId}
              agentId={agentId}
              strategy={strategy}
              stat={statOf(strategy.name)}
              holdLifted={profile.data?.autoApprove === true}
              onChanged={reload}
              onDelete={() => setDeleting(strategy)}
            />
          ))}
        </div>
        {stats.data && stats.data.totals.strategies > 0 ? (
          <p class="muted">
            All strategies: {stats.data.totals.buys} buys, spent {usd(stats.data.totals.spentUsd)}, worth {usd(stats.data.totals.valueUsd)}{' '}
            now ({usd(stats.data.totals.pnlUsd)}).
          </p>
        ) : null}
      </section>
      {deleting ? (
        <DeleteStrategy
          agentId={agentId}
          strategy={deleting}
          onDone={(deleted) => {
            setDeleting(undefined);
            if (deleted) reload();
          }}
        />
      ) : null}
    </>
  );
}

/** The service's hold reason while "Hold every order" is on (agents' approval rule words it so). */
const HELD_BY_HOLD_ALL = '(autoApprove off)';

function StrategyCard(props: {
  agentId: string;
  strategy: Strategy;
  stat: Stat | undefined;
  /** "Hold every order" is off now: a strategy it held still waits, for a reason that no longer holds. */
  holdLifted: boolean;
  onChanged(): void;
  onDelete(): void;
}) {
  const { strategy, stat } = props;
  const [busy, setBusy] = useState(false);
  const run = async (what: string, action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
      toast(`${strategy.name} ${what}`);
    } catch (caught) {
      toast(errorText(caught), 'error');
    } finally {
      setBusy(false);
      props.onChanged();
    }
  };
  const o = { agentId: props.agentId };
  return (
    <article class="card" aria-labelledby={`dca-${strategy.strategyId}`}>
      <div class="agent-head">
        <h3 id={`dca-${strategy.strategyId}`}>{strategy.name}</h3>
        <span class={`badge ${strategy.status}`}>{words(strategy.status)}</span>
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

function CreateStrategy({ agentId, onCreated }: { agentId: string; onCreated(): void }) {
  const [form, setForm] = useState({
    name: '',
    inputToken: 'USDC',
    outputToken: 'SOL',
    amount: '10',
    interval: 'every 1 hour',
    chain: 'solana' as Chain,
    maxBuys: '',
  });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const set = (field: keyof typeof form) => (event: { currentTarget: { value: string } }) =>
    setForm({ ...form, [field]: event.currentTarget.value });
  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const created = await client.dca.create(
        {
          name: form.name.trim(),
          inputToken: form.inputToken.trim(),
          outputToken: form.outputToken.trim(),
          amount: form.amount.trim(),
          interval: form.interval.trim(),
          chain: form.chain,
          ...(form.maxBuys.trim() ? { maxBuys: Number(form.maxBuys) } : {}),
        },
        { agentId },
      );
      toast(`Strategy ${created.name} created (${words(created.status)})`);
      setForm({ ...form, name: '' });
      onCreated();
    } catch (caught) {
      setError(errorText(caught));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="new-dca-title">
      <h2 id="new-dca-title">New DCA strategy</h2>
      <form onSubmit={create}>
        <div class="row">
          <label class="grow">
            Strategy name
            <input
              value={form.name}
              required
              maxLength={64}
              pattern="[A-Za-z0-9][A-Za-z0-9._:\-]*"
              onInput={set('name')}
              aria-describedby="dca-name-help"
            />
          </label>
          <label>
            Chain
            <select value={form.chain} onChange={set('chain')}>
              {CHAINS.map(({ chain }) => (
                <option key={chain} value={chain}>
                  {chain}
                </option>
              ))}
            </select>
          </label>
        </div>
        <p id="dca-name-help" class="muted small">
          Letters, digits and . _ : - (up to 64).
        </p>
        <div class="row">
          <label>
            Spend (each buy)
            <input value={form.amount} required inputMode="decimal" onInput={set('amount')} />
          </label>
          <label>
            Of token
            <input value={form.inputToken} required onInput={set('inputToken')} />
          </label>
          <label>
            To buy
            <input value={form.outputToken} required onInput={set('outputToken')} />
          </label>
        </div>
        <div class="row">
          <label class="grow">
            Interval
            <input value={form.interval} required onInput={set('interval')} aria-describedby="dca-interval-help" />
          </label>
          <label>
            Stop after (buys, optional)
            <input value={form.maxBuys} inputMode="numeric" pattern="\d*" onInput={set('maxBuys')} />
          </label>
        </div>
        <p id="dca-interval-help" class="muted small">
          At least a minute apart: <q>every 30 minutes</q>, <q>every 2h</q>, <q>every hour</q>, <q>daily</q>, <q>weekly</q>, or a cron
          expression in UTC such as <q>0 9 * * 1</q> (Mondays at 09:00).
        </p>
        <ErrorText text={error} />
        <div class="actions">
          <button type="submit" disabled={busy || form.name.trim() === ''}>
            {busy ? 'Creating…' : 'Create strategy'}
          </button>
        </div>
      </form>
    </section>
  );
}

function DeleteStrategy(props: { agentId: string; strategy: Strategy; onDone(deleted: boolean): void }) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);
  const remove = async () => {
    setBusy(true);
    try {
      await client.dca.remove(props.strategy.name, { agentId: props.agentId });
      toast(`Strategy ${props.strategy.name} deleted`);
      props.onDone(true);
    } catch (caught) {
      setError(errorText(caught));
      setBusy(false);
    }
  };
  return (
    <Modal title={`Delete ${props.strategy.name}?`} labelId="delete-dca-title" onClose={() => props.onDone(false)}>
      <p>No more buys will run. What it bought stays in the wallet.</p>
      <ErrorText text={error} />
      <div class="actions">
        <button type="button" class="danger" disabled={busy} onClick={() => void remove()}>
          {busy ? 'Deleting…' : 'Delete strategy'}
        </button>
        <button type="button" class="secondary" data-autofocus onClick={() => props.onDone(false)}>
          Cancel
        </button>
      </div>
    </Modal>
  );
}
