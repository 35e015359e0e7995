/**
 * Outside identity providers for walletless onboarding (`IDENTITY_PROVIDERS`: name → issuer,
 * audience, JWKS URL). Implemented by `adapters/identity/remote-jwks-provider.adapter.ts`.
 */

/** Who a provider says the bearer of its token is. */
export interface ProviderIdentity {
  provider: string;
  issuer: string;
  subject: string;
}

export interface IdentityProviderPort {
  /** Names of the configured providers. */
  names(): string[];
  /**
   * Verifies a provider's JWT (signature against its JWKS, `iss`, `aud`, `exp`). Throws 401
   * `Unknown identity provider: <provider>` for a name not configured, 401 PROVIDER_AUTH_FAILED
   * for a token that does not verify, 503 when the provider's JWKS cannot be fetched.
   */
  verify(provider: string, token: string): Promise<ProviderIdentity>;
}
