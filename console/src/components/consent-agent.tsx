/**
 * Which agent the client gets: the one whose MCP address it asked for (fixed: the access it gets
 * works on that address only), else one the operator picks from their agents.
 */
import type { OAuthAuthorization } from '../queries/oauth.queries.js';
import { AgentPicker } from './agent-picker.js';

export function ConsentAgent(props: { fixed: OAuthAuthorization['agent']; agentId: string; onPick(agentId: string): void }) {
  if (props.fixed) {
    return (
      <div class="consent-agent">
        <p class="field-name">Agent</p>
        <p>
          <strong>{props.fixed.name}</strong> <span class="muted mono">/mcp/{props.fixed.publicId}</span>
        </p>
        <p class="small muted">The client asked for this agent's MCP address: the access works there only.</p>
      </div>
    );
  }
  return <AgentPicker agentId={props.agentId} onPick={props.onPick} />;
}
