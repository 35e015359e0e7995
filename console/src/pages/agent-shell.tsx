/** One agent: its name and state, the section links, and the section shown. */
import { useCallback, useState } from 'preact/hooks';
import { AgentTabs } from '../components/agent-tabs.js';
import { Link } from '../components/link.js';
import { LiveEvents } from '../components/live-events.js';
import { ErrorText, Loading } from '../components/status.js';
import { useAgent } from '../queries/agents.queries.js';
import type { AgentSection } from '../routes.js';
import { AgentKeysPage } from './agent-keys.page.js';
import { DcaPage } from './dca.page.js';
import { PortfolioPage } from './portfolio.page.js';
import { TradingPage } from './trading.page.js';

export function AgentShell({ agentId, section }: { agentId: string; section: AgentSection }) {
  const agent = useAgent(agentId);
  // Bumped by live events that change what the trading pages show: they read again.
  const [refreshKey, setRefreshKey] = useState(0);
  const onChange = useCallback(() => setRefreshKey((n) => n + 1), []);
  return (
    <>
      <p>
        <Link to={{ page: 'agents' }}>← All agents</Link>
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
      {section === 'overview' ? <AgentKeysPage agentId={agentId} /> : null}
      {section === 'trading' ? <TradingPage agentId={agentId} refreshKey={refreshKey} /> : null}
      {section === 'portfolio' ? <PortfolioPage agentId={agentId} refreshKey={refreshKey} /> : null}
      {section === 'dca' ? <DcaPage agentId={agentId} refreshKey={refreshKey} /> : null}
    </>
  );
}
