/** A messaging platform's configuration: only the fields filled in are sent, so an empty token field keeps the stored token. */
import { useState } from 'preact/hooks';
import type { BotTelegramConfigGetOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import type { Platform } from '../queries/bots.queries.js';
import { toast } from '../toast.js';
import { ErrorText } from './status.js';

/** Ids typed one per line, or separated by commas or spaces. */
const ids = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((id) => id.trim())
    .filter(Boolean);

export function MessagingConfigForm(props: { botId: string; platform: Platform; current: BotTelegramConfigGetOutput; onSaved(): void }) {
  const { platform, current } = props;
  const [token, setToken] = useState('');
  const [channels, setChannels] = useState((current.channelIds ?? []).join('\n'));
  const [traders, setTraders] = useState(current.tradingUserIds.join('\n'));
  const save = useAction(async () => {
    const common = { ...(token.trim() ? { botToken: token.trim() } : {}), tradingUserIds: ids(traders) };
    if (platform === 'telegram') await client.bots.setTelegramConfig(props.botId, common);
    else await client.bots.setDiscordConfig(props.botId, { ...common, channelIds: ids(channels) });
    setToken('');
    toast(`${platform === 'telegram' ? 'Telegram' : 'Discord'} configuration saved`);
    props.onSaved();
  });
  const id = (field: string) => `${platform}-${field}`;
  return (
    <form
      class="connector-form"
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      <label>
        Bot token
        <input
          type="password"
          autoComplete="off"
          value={token}
          aria-describedby={id('token-help')}
          onInput={(event) => setToken(event.currentTarget.value)}
        />
      </label>
      <p id={id('token-help')} class="muted small">
        {current.botToken
          ? `Stored: ${current.botToken}. Leave empty to keep it.`
          : platform === 'telegram'
            ? 'From @BotFather. Stored encrypted, shown masked.'
            : 'From the Discord developer portal. Stored encrypted, shown masked.'}
      </p>
      {platform === 'discord' ? (
        <label>
          Channel ids (one per line; at least one to start)
          <textarea rows={2} value={channels} onInput={(event) => setChannels(event.currentTarget.value)} />
        </label>
      ) : null}
      <label>
        User ids who may trade by chat (one per line; none: nobody)
        <textarea rows={2} value={traders} onInput={(event) => setTraders(event.currentTarget.value)} />
      </label>
      <ErrorText text={save.error} />
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : `Save ${platform === 'telegram' ? 'Telegram' : 'Discord'} configuration`}
        </button>
      </div>
    </form>
  );
}
