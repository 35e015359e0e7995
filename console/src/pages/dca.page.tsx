/**
 * An agent's DCA strategies: create one (with what an interval may say), pause, resume, approve
 * a held one, delete; and the stats: what was spent, the average price against the current one.
 */
import { useState } from 'preact/hooks';
import type { TradingDcaStatsOutput, TradingDcaStrategiesListOutput } from 'agent-runtime-sdk';
import { DcaCreateForm } from '../components/dca-create-form.js';
import { DcaDeleteModal } from '../components/dca-delete-modal.js';
import { DcaStrategyCard } from '../components/dca-strategy-card.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { useDcaStats, useStrategies } from '../queries/dca.queries.js';
import { useOrderProfile } from '../queries/trading.queries.js';
import { usd } from '../format.js';

type Strategy = TradingDcaStrategiesListOutput['items'][number];
type Stat = TradingDcaStatsOutput['strategies'][number];

export function DcaPage({ agentId, refreshKey }: { agentId: string; refreshKey: number }) {
  const [bump, setBump] = useState(0);
  const reload = () => setBump((n) => n + 1);
  // Changes made here and live events both read everything again.
  const version = bump + refreshKey;
  const strategies = useStrategies(agentId, version);
  const stats = useDcaStats(agentId, version);
  const profile = useOrderProfile(agentId, version);
  const [deleting, setDeleting] = useState<Strategy | undefined>(undefined);
  const live = strategies.data?.items.filter((s) => s.status !== 'deleted') ?? [];
  const statOf = (name: string): Stat | undefined => stats.data?.strategies.find((s) => s.name === name);

  return (
    <>
      <DcaCreateForm agentId={agentId} onCreated={reload} />
      <section aria-labelledby="strategies-title">
        <h2 id="strategies-title">Strategies</h2>
        {strategies.loading && !strategies.data ? <Loading what="strategies" /> : null}
        <ErrorText text={strategies.error ?? stats.error} />
        {strategies.data && live.length === 0 ? <Empty>No DCA strategy yet. Create one above.</Empty> : null}
        <div class="strategy-list">
          {live.map((strategy) => (
            <DcaStrategyCard
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
        <DcaDeleteModal
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
