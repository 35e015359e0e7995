/** A choice among the operator's agents (name and MCP address); says so when there are none. */
import { useAgents } from '../queries/agents.queries.js';
import { Empty, ErrorText, Loading } from './status.js';

export function AgentPicker(props: { agentId: string; onPick(agentId: string): void }) {
  const agents = useAgents();
  if (agents.loading && !agents.data) return <Loading what="your agents" />;
  if (agents.error) return <ErrorText text={agents.error} />;
  const items = agents.data?.items ?? [];
  if (items.length === 0) return <Empty>You have no agents yet: create one on the agents page, then connect the client again.</Empty>;
  return (
    <label>
      Agent
      <select value={props.agentId} required onChange={(event) => props.onPick(event.currentTarget.value)}>
        <option value="" disabled>
          Choose an agent
        </option>
        {items.map((agent) => (
          <option key={agent.agentId} value={agent.agentId}>
            {agent.name} (/mcp/{agent.publicId})
          </option>
        ))}
      </select>
    </label>
  );
}
