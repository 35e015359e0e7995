/**
 * The command box: a trading command in English or Turkish, sent to the command route, and its
 * answer as the route gives it — the reply, the order, and the safety checks the order passed
 * (or the refusal: the check that failed is the first one after those, its message the service's).
 */
import { useState } from 'preact/hooks';
import type { TradingCommandOutput } from '../../../sdk/src/index.js';
import { isSdkError } from '../../../sdk/src/index.js';
import { client, errorText } from '../api.js';
import { words } from '../format.js';
import { orderSummary } from './order-table.js';
import { ErrorText } from './status.js';

/** A soft refusal (`success: false`, the errors): HTTP 200 with the error in the body. */
interface SoftRefusal {
  success: false;
  error: { code: string; message: string };
}
type Answer = TradingCommandOutput | SoftRefusal;

const EXAMPLES = ['swap 10 USDC to SOL', 'buy 0.5 SOL of BONK', 'sell all WIF', '10 USDC ile SOL al', 'orders pending'];

export function CommandBox(props: { agentId: string; onDone(): void }) {
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<Answer | undefined>(undefined);
  const [refusal, setRefusal] = useState<{ text: string; code: string | undefined } | undefined>(undefined);

  const send = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setAnswer(undefined);
    setRefusal(undefined);
    try {
      const result = (await client.trading.command({ message: message.trim() }, { agentId: props.agentId })) as Answer;
      setAnswer(result);
      props.onDone();
    } catch (caught) {
      const code = isSdkError(caught) && typeof caught.serverCode === 'string' ? caught.serverCode : undefined;
      setRefusal({ text: errorText(caught), code });
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="command-title">
      <h2 id="command-title">Command</h2>
      <form onSubmit={send}>
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
        {refusal ? <Refused text={refusal.text} code={refusal.code} /> : null}
        {answer?.success === false ? <Refused text={answer.error.message} code={answer.error.code} /> : null}
        {answer?.success ? <Answered answer={answer} /> : null}
      </div>
    </section>
  );
}

function Refused({ text, code }: { text: string; code: string | undefined }) {
  return (
    <div class="answer refused" data-testid="command-answer">
      <ErrorText text={text} />
      {code ? <p class="muted small">Refused by the safety checks ({code}); no order was placed.</p> : null}
    </div>
  );
}

function Answered({ answer }: { answer: TradingCommandOutput }) {
  const { order } = answer;
  return (
    <div class="answer" data-testid="command-answer">
      <p class="reply">{answer.reply}</p>
      {order ? (
        <>
          <p>
            {orderSummary(order)} — <span class={`badge ${order.status}`}>{words(order.status)}</span>
          </p>
          <h3 class="small-heading">Safety checks passed</h3>
          <ul class="checks" aria-label="Safety checks passed">
            {order.checks.map((check) => (
              <li key={check}>
                <span aria-hidden="true">✓ </span>
                {words(check)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </div>
  );
}
