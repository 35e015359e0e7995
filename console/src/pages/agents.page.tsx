/** The operator's agents: create one, pause/resume, trading on/off, default agent. */
import { useState } from 'preact/hooks';
import type { AgentListOutput } from '../../../sdk/src/index.js';
import { client, errorText } from '../api.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { toast } from '../components/toasts.js';
import { onLinkClick } from '../router.js';
import { useLoad } from '../use-load.js';

type Agent = AgentListOutput['items'][number];

/** In the order they were made (the service lists by id, which for generated ids is no order a person knows). */
const byCreation = (items: Agent[]): Agent[] =>
  [...items].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.agentId.localeCompare(b.agentId));

export function AgentsPage() {
  const agents = useLoad(() => client.agents.list({ limit: 200 }), []);
  const [name, setName] = useState('');
  const [creating, setCreating] = useState(false);
  const [createError, setCreateError] = useState<string | undefined>(undefined);

  const create = async (event: Event) => {
    event.preventDefault();
    setCreating(true);
    setCreateError(undefined);
    try {
      const agent = await client.agents.create({ name: name.trim() });
      setName('');
      toast(`Created agent ${agent.name}`);
      await agents.reload();
    } catch (error) {
      setCreateError(errorText(error));
    } finally {
      setCreating(false);
    }
  };

  return (
    <>
      <h1>Agents</h1>
      <section class="card" aria-labelledby="create-agent-title">
        <h2 id="create-agent-title">New agent</h2>
        <form class="row" onSubmit={create}>
          <label class="grow">
            Name
            <input value={name} required maxLength={100} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <button type="submit" disabled={creating || name.trim() === ''}>
            {creating ? 'Creating…' : 'Create agent'}
          </button>
        </form>
        <ErrorText text={createError} />
      </section>
      <section aria-labelledby="agent-list-title">
        <h2 id="agent-list-title">Your agents</h2>
        {agents.loading && !agents.data ? <Loading what="agents" /> : null}
        <ErrorText text={agents.error} />
        {agents.data && agents.data.items.length === 0 ? <Empty>No agents yet: create your first one above.</Empty> : null}
        {agents.data && agents.data.items.length > 0 ? (
          <ul class="agent-list">
            {byCreation(agents.data.items).map((agent) => (
              <AgentRow key={agent.agentId} agent={agent} onChanged={agents.reload} />
            ))}
          </ul>
        ) : null}
      </section>
    </>
  );
}

function AgentRow({ agent, onChanged }: { agent: Agent; onChanged(): Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const act = async (what: string, action: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await action();
      toast(`${agent.name}: ${what}`);
      await onChanged();
    } catch (error) {
      toast(`${agent.name}: ${errorText(error)}`, 'error');
    } finally {
      setBusy(false);
    }
  };
  const path = `/agents/${encodeURIComponent(agent.agentId)}`;
  const paused = agent.status === 'paused';
  return (
    <li class="agent card">
      <div class="agent-head">
        <a href={path} onClick={(event) => onLinkClick(event, path)} class="agent-name">
          {agent.name}
        </a>
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
          <button type="button" class="secondary" disabled={busy} onClick={() => act('resumed', () => client.agents.resume(agent.agentId))}>
            Resume
          </button>
        ) : (
          <button type="button" class="secondary" disabled={busy} onClick={() => act('paused', () => client.agents.pause(agent.agentId))}>
            Pause
          </button>
        )}
        <button
          type="button"
          class="secondary"
          disabled={busy}
          aria-pressed={agent.tradingEnabled}
          onClick={() =>
            act(agent.tradingEnabled ? 'trading switched off' : 'trading switched on', () =>
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
            onClick={() => act('now your default agent', () => client.agents.setDefault(agent.agentId))}
          >
            Make default
          </button>
        )}
        <a class="button" href={path} onClick={(event) => onLinkClick(event, path)}>
          Keys
        </a>
      </div>
    </li>
  );
}
