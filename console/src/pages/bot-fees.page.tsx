/** A legacy bot's venue fees by the channel that placed the orders, over all time or between two dates. */
import { useState } from 'preact/hooks';
import { FeesTable } from '../components/fees-table.js';
import { ErrorText, Loading } from '../components/status.js';
import { when } from '../format.js';
import { useFeesByChannel } from '../queries/bots.queries.js';

/** A date field's value as the start (or, with `end`, the end) of that day in UTC; empty: no bound. */
const bound = (day: string, end = false): string | undefined => (day ? `${day}T${end ? '23:59:59.999' : '00:00:00.000'}Z` : undefined);

export function BotFeesPage({ botId }: { botId: string }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const range = { from: bound(from), to: bound(to, true) };
  const fees = useFeesByChannel(botId, {
    ...(range.from ? { from: range.from } : {}),
    ...(range.to ? { to: range.to } : {}),
  });
  return (
    <section class="card" aria-labelledby="fees-title">
      <h2 id="fees-title">Fees by channel</h2>
      <div class="row filters">
        <label>
          From (UTC)
          <input type="date" value={from} max={to || undefined} onChange={(event) => setFrom(event.currentTarget.value)} />
        </label>
        <label>
          To (UTC)
          <input type="date" value={to} min={from || undefined} onChange={(event) => setTo(event.currentTarget.value)} />
        </label>
      </div>
      {fees.loading && !fees.data ? <Loading what="fees" /> : null}
      <ErrorText text={fees.error} />
      {fees.data ? (
        <>
          <FeesTable fees={fees.data} />
          {fees.data.ordersWithoutFee > 0 ? (
            <p class="muted small">
              {fees.data.ordersWithoutFee} filled order{fees.data.ordersWithoutFee === 1 ? '' : 's'} from before fees were kept on orders:
              counted in orders and volume, not in fees.
            </p>
          ) : null}
          <p class="muted small">Filled orders, in USD, as of {when(fees.data.asOf)}.</p>
        </>
      ) : null}
    </section>
  );
}
