/** The operator's agents: create one, pause/resume, trading on/off, default agent. */
import { useState } from 'preact/hooks';
import type { AgentListOutput } from 'agent-runtime-sdk';
import { client } from '../api.js';
import { AgentRow } from '../components/agent-row.js';
import { Empty, ErrorText, Loading } from '../components/status.js';
import { toast } from '../toast.js';
import { useAgents } from '../queries/agents.queries.js';
import { useAction } from '../hooks/use-action.js';

type Agent = AgentListOutput['items'][number];

/** In the order they were made (the service lists by id, which for generated ids is no order a person knows). */
const byCreation = (items: Agent[]): Agent[] =>
  [...items].sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.agentId.localeCompare(b.agentId));

export function AgentsPage() {
  const agents = useAgents();
  const [name, setName] = useState('');
  const create = useAction(async () => {
    const agent = await client.agents.create({ name: name.trim() });
    setName('');
    toast(`Created agent ${agent.name}`);
    await agents.reload();
  });

  return (
    <>
      <h1>Agents</h1>
      <section class="card" aria-labelledby="create-agent-title">
        <h2 id="create-agent-title">New agent</h2>
        <form
          class="row"
          onSubmit={(event) => {
            event.preventDefault();
            void create.run();
          }}
        >
          <label class="grow">
            Name
            <input value={name} required maxLength={100} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <button type="submit" disabled={create.busy || name.trim() === ''}>
            {create.busy ? 'Creating…' : 'Create agent'}
          </button>
        </form>
        <ErrorText text={create.error} />
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
