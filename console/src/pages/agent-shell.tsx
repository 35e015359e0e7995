/** One agent: its name and state, the section links, and the section shown. */
import { useCallback, useState } from 'preact/hooks';
import { client } from '../api.js';
import { type AgentSection, AgentTabs } from '../components/agent-tabs.js';
import { LiveEvents } from '../components/live-events.js';
import { ErrorText, Loading } from '../components/status.js';
import { onLinkClick } from '../router.js';
import { useLoad } from '../use-load.js';
import { OverviewPage } from './overview.page.js';
import { DcaPage } from './dca.page.js';
import { PortfolioPage } from './portfolio.page.js';
import { TradingPage } from './trading.page.js';

const AGENTS_PATH = '/agents';

export function AgentShell({ agentId, section }: { agentId: string; section: AgentSection }) {
  const agent = useLoad(() => client.agents.get(agentId), [agentId]);
  // Bumped by live events that change what the trading pages show: they read again.
  const [refreshKey, setRefreshKey] = useState(0);
  const onChange = useCallback(() => setRefreshKey((n) => n + 1), []);
  return (
    <>
      <p>
        <a href={AGENTS_PATH} onClick={(event) => onLinkClick(event, AGENTS_PATH)}>
          ← All agents
        </a>
      </p>
      {agent.loading && !agent.data ? <Loading what="the agent" /> : null}
      <ErrorText text={agent.error} />
      {agent.data ? (
        <>
          <h1>{agent.data.name}</h1>
          <p class="muted">
            <span class={`badge ${agent.data.status}`}>{agent.data.status}</span>{' '}
            <span class={`badge ${agent.data.tradingEnabled ? 'on' : 'off'}`}>trading {agent.data.tradingEnabled ? 'on' : 'off'}</span> MCP
            endpoint <code>/mcp/{agent.data.publicId}</code>
          </p>
        </>
      ) : null}
      <AgentTabs agentId={agentId} current={section} />
      {agent.data ? <LiveEvents publicId={agent.data.publicId} onChange={onChange} /> : null}
      {section === 'overview' ? <OverviewPage agentId={agentId} /> : null}
      {section === 'trading' ? <TradingPage agentId={agentId} refreshKey={refreshKey} /> : null}
      {section === 'portfolio' ? <PortfolioPage agentId={agentId} refreshKey={refreshKey} /> : null}
      {section === 'dca' ? <DcaPage agentId={agentId} refreshKey={refreshKey} /> : null}
    </>
  );
}
