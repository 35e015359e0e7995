/** The sections of one agent's pages, as links (each its own address, so back and reload work). */
import type { AgentSection } from '../routes.js';
import { Link } from './link.js';

const SECTIONS: Array<{ section: AgentSection; label: string }> = [
  { section: 'overview', label: 'Keys and settings' },
  { section: 'trading', label: 'Trading' },
  { section: 'portfolio', label: 'Portfolio' },
  { section: 'dca', label: 'DCA' },
];

export function AgentTabs({ agentId, current }: { agentId: string; current: AgentSection }) {
  return (
    <nav class="tabs" aria-label="Agent sections">
      {SECTIONS.map(({ section, label }) => (
        <Link key={section} to={{ page: 'agent', agentId, section }} current={section === current}>
          {label}
        </Link>
      ))}
    </nav>
  );
}
