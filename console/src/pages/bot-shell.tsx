/** One legacy bot: its name, trading state and connectors, the section links, and the section shown. */
import { useCallback, useState } from 'preact/hooks';
import { BotTabs } from '../components/bot-tabs.js';
import { ConnectorStatus } from '../components/connector-status.js';
import { Link } from '../components/link.js';
import { ErrorText, Loading } from '../components/status.js';
import { useBot } from '../queries/bots.queries.js';
import type { BotSection } from '../routes.js';
import { BotCardPage } from './bot-card.page.js';
import { BotChatPage } from './bot-chat.page.js';
import { BotFeesPage } from './bot-fees.page.js';
import { BotKeysPage } from './bot-keys.page.js';
import { BotMessagingPage } from './bot-messaging.page.js';
import { BotWidgetPage } from './bot-widget.page.js';

export function BotShell({ botId, section }: { botId: string; section: BotSection }) {
  // Bumped when a connector starts or stops here: the heading's badges read again.
  const [version, setVersion] = useState(0);
  const bot = useBot(botId, version);
  const onConnectorChange = useCallback(() => setVersion((n) => n + 1), []);
  return (
    <>
      <p>
        <Link to={{ page: 'bots' }}>← All bots</Link>
      </p>
      {bot.loading && !bot.data ? <Loading what="the bot" /> : null}
      <ErrorText text={bot.error} />
      {bot.data ? (
        <>
          <h1>{bot.data.name}</h1>
          <p class="muted badges">
            <span class={`badge ${bot.data.tradingEnabled ? 'on' : 'off'}`}>trading {bot.data.tradingEnabled ? 'on' : 'off'}</span>{' '}
            <ConnectorStatus platform="telegram" state={bot.data.platforms.telegram} />{' '}
            <ConnectorStatus platform="discord" state={bot.data.platforms.discord} /> MCP endpoint <code>/mcp/{bot.data.publicId}</code>
          </p>
        </>
      ) : null}
      <BotTabs botId={botId} current={section} />
      {section === 'keys' ? <BotKeysPage botId={botId} /> : null}
      {section === 'messaging' ? <BotMessagingPage botId={botId} onConnectorChange={onConnectorChange} /> : null}
      {section === 'chat' ? <BotChatPage botId={botId} /> : null}
      {section === 'fees' ? <BotFeesPage botId={botId} /> : null}
      {section === 'card' ? <BotCardPage botId={botId} /> : null}
      {section === 'widget' ? <BotWidgetPage botId={botId} /> : null}
    </>
  );
}
