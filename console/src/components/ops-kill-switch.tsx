/** The trading kill switch per chain: on, no new order and no approval runs on that chain. */
import type { OpsChain, OpsClient } from 'agent-runtime-sdk';
import { useKillSwitch } from '../queries/ops.queries.js';
import { when } from '../format.js';
import { useAction } from '../hooks/use-action.js';
import { ErrorText, Loading } from './status.js';
import { toast } from '../toast.js';

export function OpsKillSwitch({ ops }: { ops: OpsClient }) {
  const status = useKillSwitch(ops);
  const flip = useAction(
    async (chain: OpsChain, active: boolean) => {
      await ops.killSwitch.set({ chain, active });
      toast(active ? `Trading stopped on ${chain}` : `Trading may resume on ${chain}`);
      await status.reload();
    },
    { report: 'toast' },
  );
  const busy = flip.running?.[0];
  return (
    <section class="card" aria-labelledby="kill-title">
      <h2 id="kill-title">Kill switch</h2>
      <p class="muted small">On: no new order and no approval runs on that chain, on every process, until switched off.</p>
      {status.loading && !status.data ? <Loading what="the kill switch" /> : null}
      <ErrorText text={status.error} />
      {status.data ? (
        <ul class="switches">
          {status.data.chains.map((item) => {
            const action = busy === item.chain ? 'Switching…' : item.active ? 'Switch off' : 'Stop trading';
            return (
              <li key={item.chain}>
                <span>
                  <strong>{item.chain}</strong>{' '}
                  <span class={`badge ${item.active ? 'off' : 'on'}`}>{item.active ? 'trading stopped' : 'trading allowed'}</span>
                  {item.active && item.since ? <span class="muted small"> since {when(item.since)}</span> : null}
                  {item.source === 'configuration' ? <span class="muted small"> (set by configuration)</span> : null}
                </span>
                <button
                  type="button"
                  class={item.active ? '' : 'danger'}
                  disabled={busy !== undefined}
                  aria-pressed={item.active}
                  aria-label={`Kill switch ${item.chain}: ${action}`}
                  onClick={() => void flip.run(item.chain, !item.active)}
                >
                  {action}
                </button>
              </li>
            );
          })}
        </ul>
      ) : null}
    </section>
  );
}
