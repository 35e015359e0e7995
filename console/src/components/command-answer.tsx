/** A command's answer: the reply, the order it placed, and the safety checks that order passed. */
import type { TradingCommandOutput } from 'agent-runtime-sdk';
import { words } from '../format.js';
import { orderSummary } from './order-table.js';

export function CommandAnswer({ answer }: { answer: TradingCommandOutput }) {
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
