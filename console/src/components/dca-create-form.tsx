/** A new DCA strategy: what to spend on what, how often, on which chain, and when to stop. */
import { type Chain, CHAINS } from 'agent-runtime-sdk';
import { useState } from 'preact/hooks';
import { client } from '../api.js';
import { words } from '../format.js';
import { useAction } from '../hooks/use-action.js';
import { ErrorText } from './status.js';
import { toast } from '../toast.js';

export function DcaCreateForm({ agentId, onCreated }: { agentId: string; onCreated(): void }) {
  const [form, setForm] = useState({
    name: '',
    inputToken: 'USDC',
    outputToken: 'SOL',
    amount: '10',
    interval: 'every 1 hour',
    chain: 'solana' as Chain,
    maxBuys: '',
  });
  const set = (field: keyof typeof form) => (event: { currentTarget: { value: string } }) =>
    setForm({ ...form, [field]: event.currentTarget.value });
  const create = useAction(async () => {
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
  });
  return (
    <section class="card" aria-labelledby="new-dca-title">
      <h2 id="new-dca-title">New DCA strategy</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void create.run();
        }}
      >
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
        <ErrorText text={create.error} />
        <div class="actions">
          <button type="submit" disabled={create.busy || form.name.trim() === ''}>
            {create.busy ? 'Creating…' : 'Create strategy'}
          </button>
        </div>
      </form>
    </section>
  );
}
