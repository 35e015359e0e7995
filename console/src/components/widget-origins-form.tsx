/** The origins allowed to embed a bot's widget, one per line; the service's refusal of one shows as it says it. */
import type { BotWidgetConfigGetOutput } from 'agent-runtime-sdk';
import { useState } from 'preact/hooks';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { toast } from '../toast.js';
import { ErrorText } from './status.js';

/** Origins typed one per line, or separated by commas or spaces. */
const origins = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((origin) => origin.trim())
    .filter(Boolean);

export function WidgetOriginsForm(props: { botId: string; current: BotWidgetConfigGetOutput; onSaved(): void }) {
  const [text, setText] = useState(props.current.allowedOrigins.join('\n'));
  const save = useAction(async () => {
    await client.bots.setWidgetConfig(props.botId, { allowedOrigins: origins(text) });
    toast('Allowed origins saved');
    props.onSaved();
  });
  return (
    <form
      class="stack"
      onSubmit={(event) => {
        event.preventDefault();
        void save.run();
      }}
    >
      <label>
        Allowed origins (one per line)
        <textarea rows={3} value={text} aria-describedby="widget-origins-help" onInput={(event) => setText(event.currentTarget.value)} />
      </label>
      <p id="widget-origins-help" class="muted small">
        Scheme, host and port of each site that embeds the widget, e.g. <code>https://shop.example.com</code>. No wildcards; none: the
        widget starts nowhere.
      </p>
      <ErrorText text={save.error} />
      <div class="actions">
        <button type="submit" disabled={save.busy}>
          {save.busy ? 'Saving…' : 'Save origins'}
        </button>
      </div>
    </form>
  );
}
