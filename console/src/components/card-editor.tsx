/**
 * An agent card's draft and its place in the public directory: status (draft, published,
 * revoked), edits saved to the draft, published (optionally with a live portfolio snapshot),
 * revoked. Its other services are kept as they are; the service adds the MCP entry itself.
 */
import { useState } from 'preact/hooks';
import type { AgentCardGetOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { when } from '../format.js';
import { useAction } from '../hooks/use-action.js';
import { toast } from '../toast.js';
import { ErrorText } from './status.js';

export function CardEditor(props: { botId: string; card: AgentCardGetOutput; onChanged(): void }) {
  const { card } = props;
  const [name, setName] = useState(card.name);
  const [description, setDescription] = useState(card.description);
  const [image, setImage] = useState(card.image ?? '');
  const [active, setActive] = useState(card.active);
  const [snapshot, setSnapshot] = useState(card.snapshot);
  const act = useAction(
    async (what: 'save' | 'publish' | 'revoke') => {
      if (what === 'save') {
        await client.botCards.update(props.botId, {
          name: name.trim(),
          description: description.trim(),
          ...(image.trim() ? { image: image.trim() } : {}),
          services: card.services,
          active,
          ...(card.supportedTrust ? { supportedTrust: card.supportedTrust } : {}),
        });
        toast('Card draft saved');
      } else if (what === 'publish') {
        await client.botCards.publish(props.botId, { snapshot });
        toast('Card published to the directory');
      } else {
        await client.botCards.revoke(props.botId);
        toast('Card revoked from the directory');
      }
    },
    { settled: props.onChanged },
  );
  const busy = act.running?.[0];
  return (
    <>
      <p>
        <span class={`badge ${card.status === 'published' ? 'active' : card.status}`}>{card.status}</span>
        {card.publishedAt ? <span class="muted small"> published {when(card.publishedAt)}</span> : null}
        {card.unpublishedChanges ? <span class="muted small"> · edited since: publish again to show the edits</span> : null}
      </p>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void act.run('save');
        }}
      >
        <label>
          Card name
          <input value={name} required maxLength={100} onInput={(event) => setName(event.currentTarget.value)} />
        </label>
        <label>
          Description
          <textarea rows={3} maxLength={2000} value={description} onInput={(event) => setDescription(event.currentTarget.value)} />
        </label>
        <label>
          Image URL (https, ipfs or data; optional)
          <input value={image} inputMode="url" onInput={(event) => setImage(event.currentTarget.value)} />
        </label>
        <label class="check">
          <input type="checkbox" checked={active} onChange={(event) => setActive(event.currentTarget.checked)} />
          Takes work (shown as active in the directory)
        </label>
        <div class="actions">
          <button type="submit" disabled={busy !== undefined || name.trim() === ''}>
            {busy === 'save' ? 'Saving…' : 'Save draft'}
          </button>
        </div>
      </form>
      <h3>Directory</h3>
      <label class="check">
        <input type="checkbox" checked={snapshot} onChange={(event) => setSnapshot(event.currentTarget.checked)} />
        Publish a live portfolio snapshot with the card
      </label>
      <div class="actions">
        <button type="button" disabled={busy !== undefined} onClick={() => void act.run('publish')}>
          {busy === 'publish' ? 'Publishing…' : card.status === 'published' ? 'Publish again' : 'Publish'}
        </button>
        {card.status === 'published' ? (
          <button type="button" class="danger" disabled={busy !== undefined} onClick={() => void act.run('revoke')}>
            {busy === 'revoke' ? 'Revoking…' : 'Revoke from the directory'}
          </button>
        ) : null}
      </div>
      <ErrorText text={act.error} />
    </>
  );
}
