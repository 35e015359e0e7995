/**
 * One messaging platform of a legacy bot: its connector's state (tripped: stopped by the service,
 * with the reason), start and stop, and its configuration — the bot token (stored encrypted, shown
 * masked; left empty it is kept), Discord's channels, and who may trade by chat.
 */
import { useEffect, useRef } from 'preact/hooks';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { type Platform, useMessagingConfig } from '../queries/bots.queries.js';
import { toast } from '../toast.js';
import { ConnectorStatus } from './connector-status.js';
import { MessagingConfigForm } from './messaging-config-form.js';
import { ErrorText, Loading } from './status.js';

const NAMES: Record<Platform, string> = { telegram: 'Telegram', discord: 'Discord' };
/** A started connector can trip by itself (its circuit breaker): its state is read again this often while it runs. */
const WATCH_MS = 5_000;

export function MessagingConnector(props: { botId: string; platform: Platform; onConnectorChange(): void }) {
  const config = useMessagingConfig(props.botId, props.platform);
  const name = NAMES[props.platform];
  const switchConnector = useAction(
    async (start: boolean) => {
      const state = start
        ? await client.bots.startPlatform(props.botId, props.platform)
        : await client.bots.stopPlatform(props.botId, props.platform);
      toast(`${name} connector ${state.status}`);
    },
    { settled: () => config.reload() },
  );
  const connector = config.data?.connector;
  const status = connector?.status;
  useEffect(() => {
    if (status !== 'started') return;
    const timer = setInterval(() => void config.reload(), WATCH_MS);
    return () => clearInterval(timer);
  }, [status, config.reload]);
  // The bot's heading shows the connectors too: it reads again when this one's state changes, by itself or from here.
  const seen = useRef(status);
  const { onConnectorChange } = props;
  useEffect(() => {
    if (seen.current !== undefined && status !== undefined && status !== seen.current) onConnectorChange();
    seen.current = status;
  }, [status, onConnectorChange]);
  return (
    <section class="card" aria-labelledby={`${props.platform}-title`}>
      <h2 id={`${props.platform}-title`}>{name}</h2>
      {config.loading && !config.data ? <Loading what={`the ${name} configuration`} /> : null}
      <ErrorText text={config.error} />
      {config.data && connector ? (
        <>
          <p>
            <ConnectorStatus platform={props.platform} state={connector} detailed />
          </p>
          <div class="actions">
            {connector.status === 'started' ? (
              <button type="button" class="secondary" disabled={switchConnector.busy} onClick={() => void switchConnector.run(false)}>
                {switchConnector.busy ? 'Stopping…' : `Stop ${name}`}
              </button>
            ) : (
              <button type="button" disabled={switchConnector.busy} onClick={() => void switchConnector.run(true)}>
                {switchConnector.busy ? 'Starting…' : connector.status === 'tripped' ? `Start ${name} again` : `Start ${name}`}
              </button>
            )}
          </div>
          <ErrorText text={switchConnector.error} />
          <MessagingConfigForm
            key={config.data.updatedAt ?? 'never'}
            botId={props.botId}
            platform={props.platform}
            current={config.data}
            onSaved={() => void config.reload()}
          />
        </>
      ) : null}
    </section>
  );
}
