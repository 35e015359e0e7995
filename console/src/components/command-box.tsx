/**
 * The command box: a trading command in English or Turkish, sent to the command route, and its
 * answer as the route gives it — the reply, the order, and the safety checks the order passed
 * (or the refusal: the check that failed is the first one after those, its message the service's).
 */
import { useState } from 'preact/hooks';
import type { TradingCommandOutput } from 'agent-runtime-sdk';
import { isSdkError } from 'agent-runtime-sdk';
import { client, errorText } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { CommandAnswer } from './command-answer.js';
import { CommandRefusal } from './command-refusal.js';

/** A soft refusal (`success: false`, interface 7): HTTP 200 with the error in the body. */
interface SoftRefusal {
  success: false;
  error: { code: string; message: string };
}
type Answer = TradingCommandOutput | SoftRefusal;

const EXAMPLES = ['swap 10 USDC to SOL', 'buy 0.5 SOL of BONK', 'sell all WIF', '10 USDC ile SOL al', 'orders pending'];

export function CommandBox(props: { agentId: string; onDone(): void }) {
  const [message, setMessage] = useState('');
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  const [refusal, setRefusal] = useState<{ text: string; code: string | undefined } | undefined>(undefined);

  // A refusal is an answer here, shown with the check that refused (the service's code), not a bare error line.
  const send = useAction(async () => {
    setAnswer(undefined);
    setRefusal(undefined);
    try {
      const result = (await client.trading.command({ message: message.trim() }, { agentId: props.agentId })) as Answer;
      setAnswer(result);
      props.onDone();
    } catch (caught) {
      const code = isSdkError(caught) && typeof caught.serverCode === 'string' ? caught.serverCode : undefined;
      setRefusal({ text: errorText(caught), code });
    }
  });
  const busy = send.busy;

  return (
    <section class="card" aria-labelledby="command-title">
      <h2 id="command-title">Command</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send.run();
        }}
      >
        <label>
          Trading command
          <textarea
            rows={2}
            maxLength={4000}
            required
            value={message}
            aria-describedby="command-help"
            onInput={(event) => setMessage(event.currentTarget.value)}
            onKeyDown={(event) => {
              // Enter sends, Shift+Enter makes a new line (as in a chat box).
              if (event.key === 'Enter' && !event.shiftKey) {
                event.preventDefault();
                event.currentTarget.form?.requestSubmit();
              }
            }}
          />
        </label>
        <p id="command-help" class="muted small">
          In English or Turkish, for example: {EXAMPLES.map((example, i) => [i ? ', ' : '', <q key={example}>{example}</q>])}.
        </p>
        <div class="actions">
          <button type="submit" disabled={busy || message.trim() === ''}>
            {busy ? 'Sending…' : 'Send command'}
          </button>
        </div>
      </form>
      <div aria-live="polite">
        {refusal ? <CommandRefusal text={refusal.text} code={refusal.code} /> : null}
        {answer?.success === false ? <CommandRefusal text={answer.error.message} code={answer.error.code} /> : null}
        {answer?.success ? <CommandAnswer answer={answer} /> : null}
      </div>
    </section>
  );
}
