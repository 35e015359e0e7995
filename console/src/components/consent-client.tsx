/**
 * Who is asking, written for someone who may be looking at a phishing attempt: the client's name
 * is only what the client says about itself, so the page shows it as a claim; the host the
 * browser returns to is what the service holds the client to, so it stands out, and a client
 * address on another host is pointed out.
 */
import type { OAuthAuthorization } from '../queries/oauth.queries.js';

/** The host of an address, or the address itself when it is not one a browser reads. */
function hostOf(address: string): string {
  try {
    return new URL(address).host || address;
  } catch {
    return address;
  }
}

export function ConsentClient({ authorization }: { authorization: OAuthAuthorization }) {
  const clientHost = authorization.clientUri ? hostOf(authorization.clientUri) : undefined;
  return (
    <div class="consent-client">
      <h1 id="consent-title">
        <span class="client-name">{authorization.clientName}</span> wants to act on your agent
      </h1>
      <dl class="consent-facts">
        <dt>After you decide, you go back to</dt>
        <dd>
          <span class="redirect-host mono" data-testid="redirect-host">
            {authorization.redirectHost}
          </span>
        </dd>
        {clientHost ? (
          <>
            <dt>The client's own site</dt>
            <dd class="mono">{clientHost}</dd>
          </>
        ) : null}
      </dl>
      <p class="consent-warning">
        The name above is what the client says it is; nobody has checked it. Approve only if you started this connection yourself, from an
        app you trust that answers at <strong class="mono">{authorization.redirectHost}</strong>.
        {clientHost && clientHost !== authorization.redirectHost ? ` Its site (${clientHost}) is on another host than that.` : ''}
      </p>
    </div>
  );
}
