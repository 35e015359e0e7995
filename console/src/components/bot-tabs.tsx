/** The sections of one legacy bot's pages, as links (each its own address, so back and reload work). */
import type { BotSection } from '../routes.js';
import { Link } from './link.js';

const SECTIONS: Array<{ section: BotSection; label: string }> = [
  { section: 'keys', label: 'Keys' },
  { section: 'messaging', label: 'Messaging' },
  { section: 'chat', label: 'Chat' },
  { section: 'fees', label: 'Fees' },
  { section: 'card', label: 'Card' },
  { section: 'widget', label: 'Widget' },
];

export function BotTabs({ botId, current }: { botId: string; current: BotSection }) {
  return (
    <nav class="tabs" aria-label="Bot sections">
      {SECTIONS.map(({ section, label }) => (
        <Link key={section} to={{ page: 'bot', botId, section }} current={section === current}>
          {label}
        </Link>
      ))}
    </nav>
  );
}
