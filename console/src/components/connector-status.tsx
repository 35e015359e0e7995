/** A messaging connector's state as a badge: started, stopped, or tripped (stopped by the service), with why and since when. */
import type { BotGetOutput } from 'agent-runtime-sdk';
import { ago, when } from '../format.js';

type ConnectorState = BotGetOutput['platforms']['telegram'];

const PLATFORM_NAMES = { telegram: 'Telegram', discord: 'Discord' } as const;

export function ConnectorStatus(props: { platform: 'telegram' | 'discord'; state: ConnectorState; detailed?: boolean }) {
  const { state } = props;
  const name = PLATFORM_NAMES[props.platform];
  return (
    <span class="connector">
      <span class={`badge ${state.status}`}>
        {name} {state.status}
      </span>
      {props.detailed ? (
        <span class="muted small">
          {' '}
          since{' '}
          <time dateTime={state.since} title={when(state.since)}>
            {ago(state.since)}
          </time>
        </span>
      ) : null}
      {state.status === 'tripped' && state.reason ? <span class="error small"> {state.reason}</span> : null}
    </span>
  );
}
