/**
 * The errors of the OAuth endpoints, on their own wire (RFC 6749 §5.2, RFC 7591 §3.2.2,
 * RFC 7009): `{error, error_description}` with the status the RFC names, or, on the
 * authorization endpoint, a redirect carrying them. They never reach the REST envelope:
 * OAuth clients parse these fields and nothing else.
 */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'server_error'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata';

export class OAuthProtocolError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthProtocolError';
  }

  body(): { error: OAuthErrorCode; error_description: string } {
    return { error: this.error, error_description: this.description };
  }
}

/**
 * An authorization request whose client or redirect URI cannot be trusted: the browser is
 * shown an error page and never sent anywhere (RFC 6749 §4.1.2.1), since redirecting would
 * hand an attacker's URI the outcome.
 */
export class UntrustedAuthorizationRequest extends Error {
  constructor(readonly description: string) {
    super(description);
    this.name = 'UntrustedAuthorizationRequest';
  }
}

/**
 * A refusal of an authorization request whose redirect URI is known good: the browser goes
 * back to the client with `error` (and `state`).
 */
export class AuthorizationRedirectError extends Error {
  constructor(
    readonly redirectTo: string,
    readonly error: OAuthErrorCode,
  ) {
    super(error);
    this.name = 'AuthorizationRedirectError';
  }
}
