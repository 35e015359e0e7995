/**
 * The bot's real widget, running in a frame of the console's own origin (a page the service
 * serves for it). The widget starts only on allowed origins, so the preview first needs this
 * console's origin among them; a button adds it.
 */
import type { BotWidgetConfigGetOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { ErrorText } from './status.js';

/** The origin as the service compares it: case-insensitive, no trailing slash (the browser already drops default ports). */
const same = (a: string, b: string) => a.toLowerCase().replace(/\/$/, '') === b.toLowerCase().replace(/\/$/, '');

export function WidgetPreview(props: { botId: string; config: BotWidgetConfigGetOutput; onChanged(): void }) {
  const origin = window.location.origin;
  const allowed = props.config.allowedOrigins.some((entry) => same(entry, origin));
  const allow = useAction(async () => {
    await client.bots.setWidgetConfig(props.botId, { allowedOrigins: [...props.config.allowedOrigins, origin] });
    props.onChanged();
  });
  if (!allowed)
    return (
      <>
        <p>
          The preview runs the widget on this console's origin, <code>{origin}</code>, which is not among the allowed origins: the widget
          would refuse to start here.
        </p>
        <ErrorText text={allow.error} />
        <div class="actions">
          <button type="button" disabled={allow.busy} onClick={() => void allow.run()}>
            Allow this console's origin for the preview
          </button>
        </div>
      </>
    );
  return (
    <>
      {props.config.enabled ? null : <p class="muted">The widget is switched off: it shows, but no chat starts.</p>}
      <p class="muted small">The widget as a visitor sees it. Opening it starts a real chat with the bot.</p>
      <iframe class="widget-preview" title="Widget preview" src={`/bots/${encodeURIComponent(props.botId)}/widget/preview`} />
    </>
  );
}
