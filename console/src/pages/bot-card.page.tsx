/** A legacy bot's agent card (its ERC-8004 registration file): the draft edited, published to the directory, revoked from it. */
import { CardEditor } from '../components/card-editor.js';
import { ErrorText, Loading } from '../components/status.js';
import { useBotCard } from '../queries/bots.queries.js';

export function BotCardPage({ botId }: { botId: string }) {
  const card = useBotCard(botId);
  return (
    <section class="card" aria-labelledby="card-title">
      <h2 id="card-title">Agent card</h2>
      {card.loading && !card.data ? <Loading what="the agent card" /> : null}
      <ErrorText text={card.error} />
      {card.data ? <CardEditor key={card.data.updatedAt} botId={botId} card={card.data} onChanged={() => void card.reload()} /> : null}
    </section>
  );
}
