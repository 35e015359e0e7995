/** A command refused: the service's message, and when a safety check refused it, that no order was placed. */
import { ErrorText } from './status.js';

export function CommandRefusal({ text, code }: { text: string; code: string | undefined }) {
  return (
    <div class="answer refused" data-testid="command-answer">
      <ErrorText text={text} />
      {code ? <p class="muted small">Refused by the safety checks ({code}); no order was placed.</p> : null}
    </div>
  );
}
