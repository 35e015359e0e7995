/** A legacy bot's Telegram and Discord connectors: configuration, start and stop, and their state. */
import { MessagingConnector } from '../components/messaging-connector.js';

export function BotMessagingPage({ botId, onConnectorChange }: { botId: string; onConnectorChange(): void }) {
  return (
    <div class="wallet-grid">
      <MessagingConnector botId={botId} platform="telegram" onConnectorChange={onConnectorChange} />
      <MessagingConnector botId={botId} platform="discord" onConnectorChange={onConnectorChange} />
    </div>
  );
}
