/** The sections of one agent's pages, as links (each its own address, so back and reload work). */
import { onLinkClick } from '../router.js';

export type AgentSection = 'overview' | 'trading' | 'portfolio' | 'dca';

const SECTIONS: Array<{ section: AgentSection; label: string; suffix: string }> = [
  { section: 'overview', label: 'Keys and settings', suffix: '' },
  { section: 'trading', label: 'Trading', suffix: '/trading' },
  { section: 'portfolio', label: 'Portfolio', suffix: '/portfolio' },
  { section: 'dca', label: 'DCA', suffix: '/dca' },
];

const agentPath = (agentId: string, section: AgentSection): string =>
  `/agents/${encodeURIComponent(agentId)}${SECTIONS.find((item) => item.section === section)?.suffix ?? ''}`;

export function AgentTabs({ agentId, current }: { agentId: string; current: AgentSection }) {
  return (
    <nav class="tabs" aria-label="Agent sections">
      {SECTIONS.map(({ section, label }) => {
        const path = agentPath(agentId, section);
        return (
          <a
            key={section}
            href={path}
            aria-current={section === current ? 'page' : undefined}
            onClick={(event) => onLinkClick(event, path)}
          >
            {label}
          </a>
        );
      })}
    </nav>
  );
}

/** The parts of an agent path: `/agents/<id>[/<section>]`. */
export function parseAgentPath(path: string): { agentId: string; section: AgentSection } | undefined {
  const match = /^\/agents\/([^/]+)(?:\/(trading|portfolio|dca))?$/.exec(path);
  if (!match?.[1]) return undefined;
  return { agentId: decodeURIComponent(match[1]), section: (match[2] as AgentSection | undefined) ?? 'overview' };
}
