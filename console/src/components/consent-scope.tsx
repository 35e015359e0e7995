/**
 * What the client may do, one line for each scope, the ones the client asked for marked; `manage`
 * asks the authenticator code (the service checks it with the approval).
 */
import type { GrantScope } from '../queries/oauth.queries.js';
import { CodeInput } from './code-input.js';

const SCOPES: Array<{ scope: GrantScope; line: string }> = [
  { scope: 'read', line: 'See the agent: status, portfolio, positions, trade history, logs and research. Changes nothing.' },
  { scope: 'trade', line: 'Read, plus submit, cancel and approve orders and run strategies, within the agent’s limits.' },
  { scope: 'manage', line: 'Trade, plus keys, settings and scopes of the agent. Needs your authenticator code.' },
];

export function ConsentScope(props: {
  value: GrantScope;
  /** The scopes the client asked for. */
  asked: ReadonlySet<string>;
  onChange(scope: GrantScope): void;
  code: string;
  onCode(code: string): void;
}) {
  return (
    <fieldset class="consent-scope">
      <legend>What it may do</legend>
      {SCOPES.map(({ scope, line }) => (
        <label key={scope} class="scope-option">
          <input type="radio" name="scope" value={scope} checked={props.value === scope} onChange={() => props.onChange(scope)} />
          <span>
            <strong>{scope}</strong>
            {props.asked.has(scope) ? <span class="badge">asked for</span> : null}
            <span class="scope-line">{line}</span>
          </span>
        </label>
      ))}
      {props.value === 'manage' ? <CodeInput label="Authenticator code" value={props.code} onInput={props.onCode} /> : null}
    </fieldset>
  );
}
