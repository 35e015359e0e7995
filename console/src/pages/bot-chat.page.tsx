/**
 * A legacy bot's web chat, as its users see it: questions answered, trading commands executed
 * through the safety path when the bot's trading is on. The conversation is the service's
 * (`console`, its last turns kept there); this page shows what was said since it opened.
 */
import { useState } from 'preact/hooks';
import { client } from '../api.js';
import { ChatTurn, type Turn } from '../components/chat-turn.js';
import { ErrorText } from '../components/status.js';
import { useAction } from '../hooks/use-action.js';

/** The console's own conversation with the bot, apart from the web chat's default one. */
const CHAT_ID = 'console';

export function BotChatPage({ botId }: { botId: string }) {
  const [message, setMessage] = useState('');
  const [turns, setTurns] = useState<Turn[]>([]);
  // One id per message: sent again after a network error, a trading command places no second order.
  const send = useAction(async (text: string, id: string) => {
    const answer = await client.bots.chat(botId, { message: text, chat_id: CHAT_ID, message_id: id });
    setTurns((all) => [...all, { id, message: text, answer }]);
    setMessage('');
  });
  return (
    <section class="card" aria-labelledby="chat-title">
      <h2 id="chat-title">Chat</h2>
      {turns.length === 0 ? (
        <p class="muted">Ask the bot something, or send a command such as “status” or “buy 0.5 SOL of BONK”.</p>
      ) : (
        <ol class="chat" aria-label="Conversation">
          {turns.map((turn) => (
            <ChatTurn key={turn.id} turn={turn} />
          ))}
        </ol>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void send.run(message.trim(), crypto.randomUUID());
        }}
      >
        <label>
          Message
          <textarea
            rows={2}
            maxLength={4000}
            required
            value={message}
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
        <ErrorText text={send.error} />
        <div class="actions">
          <button type="submit" disabled={send.busy || message.trim() === ''}>
            {send.busy ? 'Sending…' : 'Send'}
          </button>
        </div>
      </form>
    </section>
  );
}
