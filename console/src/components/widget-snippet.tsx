/**
 * The embed snippet of a bot's widget: one script tag. The widget learns the bot and the service
 * from the script's own address, so the tag needs no other attribute.
 */
import { useState } from 'preact/hooks';
import { client } from '../api.js';

export function WidgetSnippet({ botId }: { botId: string }) {
  const snippet = `<script src="${client.bots.widgetScriptUrl(botId)}" async></script>`;
  const [copied, setCopied] = useState<boolean | undefined>(undefined);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(snippet);
      setCopied(true);
    } catch {
      // Clipboard access refused (permissions, insecure context): the snippet stays selectable.
      setCopied(false);
    }
  };
  return (
    <>
      <p>Add this tag to each page of an allowed origin, before the end of its body:</p>
      <pre class="snippet" data-testid="widget-snippet">
        <code>{snippet}</code>
      </pre>
      <div class="actions">
        <button type="button" onClick={() => void copy()}>
          Copy snippet
        </button>
        <span class="muted" role="status">
          {copied === true ? 'Copied.' : copied === false ? 'The browser refused the clipboard: select the snippet and copy it.' : ''}
        </span>
      </div>
    </>
  );
}
