/** One legacy bot in the operator's list: its name, whether it trades, its connectors' state, and links to its pages. */
import type { BotListOutput } from 'agent-runtime-sdk';
import { ConnectorStatus } from './connector-status.js';
import { Link } from './link.js';

type Bot = BotListOutput['items'][number];

export function BotRow({ bot }: { bot: Bot }) {
  return (
    <li class="agent card">
      <div class="agent-head">
        <Link to={{ page: 'bot', botId: bot.id, section: 'keys' }} class="agent-name">
          {bot.name}
        </Link>
        <span class={`badge ${bot.tradingEnabled ? 'on' : 'off'}`}>trading {bot.tradingEnabled ? 'on' : 'off'}</span>
        <ConnectorStatus platform="telegram" state={bot.platforms.telegram} />
        <ConnectorStatus platform="discord" state={bot.platforms.discord} />
      </div>
      {bot.description ? <p class="wrap">{bot.description}</p> : null}
      <p class="muted mono">{bot.id}</p>
      <div class="actions">
        <Link class="button" to={{ page: 'bot', botId: bot.id, section: 'keys' }}>
          Keys
        </Link>
        <Link class="button" to={{ page: 'bot', botId: bot.id, section: 'messaging' }}>
          Messaging
        </Link>
        <Link class="button" to={{ page: 'bot', botId: bot.id, section: 'chat' }}>
          Chat
        </Link>
      </div>
    </li>
  );
}
