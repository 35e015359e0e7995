import { createRemoteJWKSet, errors, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { IdentityProviderPort, ProviderIdentity } from '../../kernel/ports/identity-provider.port.js';
import { ProviderBreaker, providerUnavailable, type BreakerLogger } from '../resilience/provider-breaker.js';

/** One provider of `IDENTITY_PROVIDERS`. */
export interface IdentityProviderSettings {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

export interface RemoteJwksProviderOptions {
  providers: Record<string, IdentityProviderSettings>;
  /** Budget of one JWKS fetch. */
  timeoutMs: number;
  /** Least time between two fetches of one provider's JWKS on unknown `kid`s (jose's cooldown). */
  cooldownMs: number;
  breaker: { threshold: number; openMs: number; logger?: BreakerLogger };
  clock: ClockPort;
}

/** Errors that say the token is wrong, not that the provider is unwell. */
const TOKEN_ERRORS = [
  errors.JWTExpired,
  errors.JWTClaimValidationFailed,
  errors.JWTInvalid,
  errors.JWSInvalid,
  errors.JWSSignatureVerificationFailed,
  errors.JWKSNoMatchingKey,
  errors.JWKSMultipleMatchingKeys,
  errors.JOSEAlgNotAllowed,
  errors.JOSENotSupported,
];

/**
 * Provider tokens verified against each provider's remote JWKS with jose: the key set is
 * cached and fetched again when a token names a `kid` it does not hold (at most once per
 * cooldown), each fetch under a timeout, and a provider whose JWKS keeps failing trips its
 * own circuit breaker (cockatiel): its tokens then fail fast with 503 for the open window.
 */
export class RemoteJwksIdentityProviders implements IdentityProviderPort {
  private readonly entries = new Map<string, { settings: IdentityProviderSettings; keys: JWTVerifyGetKey; breaker: ProviderBreaker }>();

  constructor(private readonly options: RemoteJwksProviderOptions) {
    for (const [name, settings] of Object.entries(options.providers)) {
      const keys = createRemoteJWKSet(new URL(settings.jwksUrl), {
        timeoutDuration: options.timeoutMs,
        cooldownDuration: options.cooldownMs,
      });
      // The timeout is jose's (it aborts the fetch); the breaker only counts and fails fast.
      const breaker = new ProviderBreaker({
        provider: `identity:${name}`,
        threshold: options.breaker.threshold,
        openMs: options.breaker.openMs,
        ...(options.breaker.logger ? { logger: options.breaker.logger } : {}),
        timeoutMs: 0,
        clock: options.clock,
      });
      this.entries.set(name, { settings, keys, breaker });
    }
  }

  names(): string[] {
    return [...this.entries.keys()];
  }

  async verify(provider: string, token: string): Promise<ProviderIdentity> {
    const entry = this.entries.get(provider);
    if (!entry) throw new AppError('AUTHENTICATION_FAILED', `Unknown identity provider: ${provider}`, { envelope: 'domain' });
    const { settings } = entry;
    return entry.breaker.execute(async () => {
      try {
        const { payload } = await jwtVerify(token, entry.keys, {
          issuer: settings.issuer,
          audience: settings.audience,
          currentDate: new Date(this.options.clock.now()),
          requiredClaims: ['sub', 'exp'],
        });
        if (typeof payload.sub !== 'string' || payload.sub === '') throw invalid('no subject');
        return { provider, issuer: settings.issuer, subject: payload.sub };
      } catch (error) {
        if (error instanceof AppError) throw error;
        if (TOKEN_ERRORS.some((type) => error instanceof type)) throw invalid((error as errors.JOSEError).code);
        // Timeouts, network errors, a JWKS that is not 200 or not a key set: the provider's fault.
        throw providerUnavailable(`identity:${provider}`, error instanceof Error ? error.message.slice(0, 120) : 'jwks unavailable', {
          cause: error,
        });
      }
    });
  }
}

/** 401: the provider's token does not prove anything (SDK `provider_auth_error`). */
function invalid(reason: string): AppError {
  return new AppError('PROVIDER_AUTH_FAILED', 'Identity provider token validation failed', { envelope: 'domain', details: { reason } });
}
