/** The operator's legacy bots: create one, and each with its trading and messaging connectors' state. */
import { useState } from 'preact/hooks';
import { client } from '../api.js';
import { BotRow } from '../components/bot-row.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { useAction } from '../hooks/use-action.js';
import { useBots } from '../queries/bots.queries.js';
import { toast } from '../toast.js';

export function BotsPage() {
  const bots = useBots();
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const create = useAction(async () => {
    const bot = await client.bots.create({ name: name.trim(), ...(description.trim() ? { description: description.trim() } : {}) });
    setName('');
    setDescription('');
    toast(`Created bot ${bot.name}`);
    await bots.reload();
  });

  return (
    <>
      <h1>Bots</h1>
      <p class="muted">
        Legacy bots, kept for compatibility: their keys, Telegram and Discord connectors, web chat, fees by channel and agent card. New work
        belongs to agents.
      </p>
      <section class="card" aria-labelledby="create-bot-title">
        <h2 id="create-bot-title">New bot</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void create.run();
          }}
        >
          <div class="row">
            <label class="grow">
              Bot name
              <input value={name} required maxLength={100} onInput={(event) => setName(event.currentTarget.value)} />
            </label>
            <label class="grow">
              Description (optional)
              <input value={description} maxLength={2000} onInput={(event) => setDescription(event.currentTarget.value)} />
            </label>
          </div>
          <div class="actions">
            <button type="submit" disabled={create.busy || name.trim() === ''}>
              {create.busy ? 'Creating…' : 'Create bot'}
            </button>
          </div>
        </form>
        <ErrorText text={create.error} />
      </section>
      <section aria-labelledby="bot-list-title">
        <h2 id="bot-list-title">Your bots</h2>
        {bots.loading && !bots.data ? <Loading what="bots" /> : null}
        <ErrorText text={bots.error} />
        {bots.data && bots.data.items.length === 0 ? <Empty>No bots yet.</Empty> : null}
        {bots.data && bots.data.items.length > 0 ? (
          <ul class="agent-list">
            {bots.data.items.map((bot) => (
              <BotRow key={bot.id} bot={bot} />
            ))}
          </ul>
        ) : null}
      </section>
    </>
  );
}
