/**
 * The consent form: who asks and where the browser goes back to, the agent (fixed when the
 * client named one, else picked), the scope, Approve and Deny. Either decision answers the
 * address the browser goes to next (the client's redirect URI with the code, or with
 * `access_denied`); the service's refusals show beside the buttons in its words.
 */
import { useState } from 'preact/hooks';
import { when } from '../format.js';
import { useAction } from '../hooks/use-action.js';
import { approveAuthorization, denyAuthorization, type GrantScope, type OAuthAuthorization } from '../queries/oauth.queries.js';
import { leaveFor } from '../router.js';
import { ConsentAgent } from './consent-agent.js';
import { ConsentClient } from './consent-client.js';
import { ConsentNotice } from './consent-notice.js';
import { ConsentScope } from './consent-scope.js';
import { ErrorText } from './status.js';

/**
 * The scope chosen at first: the narrowest one the client asked for, else `read`. Clients often
 * ask for every scope the service lists, whatever they need: more is the operator's choice to make.
 */
function askedScope(asked: ReadonlySet<string>): GrantScope {
  return asked.has('read') ? 'read' : asked.has('trade') ? 'trade' : asked.has('manage') ? 'manage' : 'read';
}

export function ConsentForm({ authorization }: { authorization: OAuthAuthorization }) {
  const asked = new Set(authorization.scope.split(/\s+/).filter(Boolean));
  const [agentId, setAgentId] = useState(authorization.agent?.agentId ?? '');
  const [scope, setScope] = useState<GrantScope>(askedScope(asked));
  const [code, setCode] = useState('');
  const [leaving, setLeaving] = useState(false);

  const go = (redirectTo: string) => {
    setLeaving(true);
    leaveFor(redirectTo);
  };
  const approve = useAction(
    async () =>
      go(
        (
          await approveAuthorization({
            authorizationId: authorization.authorizationId,
            agentId,
            scope,
            ...(scope === 'manage' ? { code } : {}),
          })
        ).redirectTo,
      ),
    // A code is single use and a wrong one is spent too: the field starts over.
    { failed: () => setCode('') },
  );
  const deny = useAction(async () => go((await denyAuthorization(authorization.authorizationId)).redirectTo));
  const busy = approve.busy || deny.busy || leaving;
  const ready = agentId !== '' && (scope !== 'manage' || code.length === 6);

  if (leaving) {
    return (
      <ConsentNotice title={`Taking you back to ${authorization.redirectHost}…`}>
        <p role="status">If the app does not open, you can close this tab: your decision is recorded.</p>
      </ConsentNotice>
    );
  }
  return (
    <section class="card consent" aria-labelledby="consent-title">
      <p class="eyebrow">Access request from an MCP client</p>
      <ConsentClient authorization={authorization} />
      <form
        class="stack"
        onSubmit={(event) => {
          event.preventDefault();
          deny.clearError();
          void approve.run();
        }}
      >
        <ConsentAgent fixed={authorization.agent} agentId={agentId} onPick={setAgentId} />
        <ConsentScope value={scope} asked={asked} onChange={setScope} code={code} onCode={setCode} />
        <ErrorText text={approve.error ?? deny.error} />
        <div class="actions">
          <button type="submit" disabled={busy || !ready}>
            {approve.busy ? 'Approving…' : 'Approve'}
          </button>
          <button
            type="button"
            class="secondary"
            disabled={busy}
            onClick={() => {
              approve.clearError();
              void deny.run();
            }}
          >
            {deny.busy ? 'Denying…' : 'Deny'}
          </button>
        </div>
      </form>
      <p class="small muted">
        This request expires <time dateTime={authorization.expiresAt}>{when(authorization.expiresAt)}</time>. You can revoke the access at
        any time on the agent's keys page.
      </p>
    </section>
  );
}
