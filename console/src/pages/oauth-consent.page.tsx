/**
 * The consent page of OAuth sign-in for MCP clients: the service's authorize route sends the
 * browser here with the request's id (the shell has the operator sign in first, on this same
 * address). It reads the request and shows the consent form, or says the request is gone.
 */
import { ConsentForm } from '../components/consent-form.js';
import { ConsentNotice } from '../components/consent-notice.js';
import { ErrorText, Loading } from '../components/status.js';
import { useAuthorization } from '../queries/oauth.queries.js';
import './oauth-consent.page.css';

export function OAuthConsentPage({ authorizationId }: { authorizationId: string }) {
  const read = useAuthorization(authorizationId);
  if (read.loading && !read.data) return <Loading what="the access request" />;
  if (read.error) {
    return (
      <ConsentNotice title="The access request could not be read">
        <ErrorText text={read.error} />
        <button type="button" class="secondary" onClick={() => void read.reload()}>
          Try again
        </button>
      </ConsentNotice>
    );
  }
  if (read.data?.gone !== undefined) {
    return (
      <ConsentNotice title="This access request has expired or is unknown">
        <p>{read.data.gone}</p>
        <p>Nothing was approved. Go back to the app and connect again: it starts a new request.</p>
      </ConsentNotice>
    );
  }
  return read.data ? <ConsentForm authorization={read.data.authorization} /> : null;
}
