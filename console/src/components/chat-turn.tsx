/** One exchange of the bot chat: what was asked, the bot's reply, and the order it placed when a command was executed. */
import type { BotChatOutput } from 'agent-runtime-sdk';
import { words } from '../format.js';
import { orderSummary } from './order-table.js';

export interface Turn {
  id: string;
  message: string;
  answer: BotChatOutput;
}

export function ChatTurn({ turn }: { turn: Turn }) {
  const { answer } = turn;
  return (
    <li>
      <p class="said">
        <span class="sr-only">You: </span>
        {turn.message}
      </p>
      <div class="answer" data-testid="chat-answer">
        <p class="reply">
          <span class="sr-only">Bot: </span>
          {answer.reply}
        </p>
        {answer.order ? (
          <p>
            {orderSummary(answer.order)} — <span class={`badge ${answer.order.status}`}>{words(answer.order.status)}</span>
          </p>
        ) : null}
        <p class="muted small">
          {words(answer.intent)}
          {answer.executed ? ', executed' : ''}
          {answer.degraded ? ' (a templated reply: the language model was unavailable)' : ''}
        </p>
      </div>
    </li>
  );
}
