/** A legacy bot's chat widget: the allowed origins, the embed snippet, a live preview and the events its widgets sent. */
import { useState } from 'preact/hooks';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { WidgetEventsTable } from '../components/widget-events.js';
import { WidgetOriginsForm } from '../components/widget-origins-form.js';
import { WidgetPreview } from '../components/widget-preview.js';
import { WidgetSnippet } from '../components/widget-snippet.js';
import { useAction } from '../hooks/use-action.js';
import { useWidgetConfig, useWidgetEvents } from '../queries/widget.queries.js';

export function BotWidgetPage({ botId }: { botId: string }) {
  const [version, setVersion] = useState(0);
  const config = useWidgetConfig(botId, version);
  const events = useWidgetEvents(botId);
  const reread = useAction(() => events.reload());
  const changed = () => setVersion((n) => n + 1);
  return (
    <>
      <section class="card" aria-labelledby="widget-config-title">
        <h2 id="widget-config-title">Widget configuration</h2>
        {config.loading && !config.data ? <Loading what="the widget configuration" /> : null}
        <ErrorText text={config.error} />
        {config.data ? (
          <WidgetOriginsForm key={config.data.allowedOrigins.join(' ')} botId={botId} current={config.data} onSaved={changed} />
        ) : null}
      </section>
      <section class="card" aria-labelledby="widget-snippet-title">
        <h2 id="widget-snippet-title">Embed snippet</h2>
        <WidgetSnippet botId={botId} />
      </section>
      <section class="card" aria-labelledby="widget-preview-title">
        <h2 id="widget-preview-title">Preview</h2>
        {config.data ? <WidgetPreview botId={botId} config={config.data} onChanged={changed} /> : null}
      </section>
      <section class="card" aria-labelledby="widget-events-title">
        <h2 id="widget-events-title">Events from the widget</h2>
        <ErrorText text={events.error ?? reread.error} />
        <div class="actions">
          <button type="button" disabled={reread.busy} onClick={() => void reread.run()}>
            {reread.busy ? 'Reading…' : 'Read events again'}
          </button>
        </div>
        {events.loading && !events.data ? <Loading what="the widget events" /> : null}
        {events.data && events.data.events.length === 0 ? <Empty>No events yet. They appear once a visitor opens the widget.</Empty> : null}
        {events.data && events.data.events.length > 0 ? <WidgetEventsTable events={events.data.events} /> : null}
      </section>
    </>
  );
}
