/** One agent in the operator's list: its state, and pause/resume, trading on/off, default, its pages. */
import type { AgentListOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { useAction } from '../hooks/use-action.js';
import { Link } from './link.js';
import { toast } from '../toast.js';

type Agent = AgentListOutput['items'][number];

export function AgentRow({ agent, onChanged }: { agent: Agent; onChanged(): Promise<void> }) {
  const act = useAction(
    async (what: string, action: () => Promise<unknown>) => {
      await action();
      toast(`${agent.name}: ${what}`);
      await onChanged();
    },
    { report: 'toast', label: agent.name },
  );
  const busy = act.busy;
  const page = { page: 'agent', agentId: agent.agentId, section: 'overview' } as const;
  const paused = agent.status === 'paused';
  return (
    <li class="agent card">
      <div class="agent-head">
        <Link to={page} class="agent-name">
          {agent.name}
        </Link>
        <span class={`badge ${agent.status}`}>{agent.status}</span>
        <span class={`badge ${agent.tradingEnabled ? 'on' : 'off'}`}>trading {agent.tradingEnabled ? 'on' : 'off'}</span>
        {agent.isDefault ? (
          <span class="badge default" title="The agent your :userId trading routes act on">
            default
          </span>
        ) : null}
      </div>
      <p class="muted mono">{agent.agentId}</p>
      <div class="actions">
        {paused ? (
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() => act.run('resumed', () => client.agents.resume(agent.agentId))}
          >
            Resume
          </button>
        ) : (
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() => act.run('paused', () => client.agents.pause(agent.agentId))}
          >
            Pause
          </button>
        )}
        <button
          type="button"
          class="secondary"
          disabled={busy}
          aria-pressed={agent.tradingEnabled}
          onClick={() =>
            act.run(agent.tradingEnabled ? 'trading switched off' : 'trading switched on', () =>
              client.agents.setTrading(agent.agentId, { enabled: !agent.tradingEnabled }),
            )
          }
        >
          {agent.tradingEnabled ? 'Switch trading off' : 'Switch trading on'}
        </button>
        {agent.isDefault ? null : (
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() => act.run('now your default agent', () => client.agents.setDefault(agent.agentId))}
          >
            Make default
          </button>
        )}
        <Link class="button" to={page}>
          Keys
        </Link>
      </div>
    </li>
  );
}
