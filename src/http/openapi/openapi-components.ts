/**
 * Shared pieces of the OpenAPI document: the error envelopes of the error envelopes, security
 * schemes (authentication), rate-limit / legacy / idempotency headers, and one reusable
 * response per error status so every route refers to the same shapes.
 */
import { z } from 'zod';
import type { ErrorStatus, JsonObject } from './route-doc.types.js';
import type { SchemaConverter } from './json-schema.js';

/** The REST envelopes of the error envelopes, as zod so they render like every other schema. */
const hintDetails = z
  .object({ hint: z.string().describe('The next step, in English (e.g. where the wallet and the faucet are)') })
  .optional()
  .describe('Present when the refusal knows the next step');
export const ERROR_ENVELOPES = {
  StandardError: z.object({ statusCode: z.number().int(), message: z.string(), error: z.string(), details: hintDetails }),
  ValidationError: z.object({
    statusCode: z.literal(400),
    message: z.array(z.string()),
    error: z.literal('Bad Request'),
    details: hintDetails,
  }),
  DomainError: z.object({ statusCode: z.number().int(), message: z.string(), error: z.string(), code: z.string(), details: hintDetails }),
  CanonicalFailure: z.object({
    success: z.literal(false),
    error: z.object({
      code: z.string(),
      message: z.string(),
      details: z.object({ retryable: z.boolean(), retryAfterSeconds: z.number().optional(), hint: z.string().optional() }),
    }),
    meta: z.object({ requestId: z.string(), correlationId: z.string() }),
  }),
} satisfies Record<string, z.ZodType>;

const SECURITY_SCHEMES: JsonObject = {
  sessionBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'Session access token from a wallet login (15 minutes).',
  },
  apiKeyBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'mcpk_ API key',
    description: 'Agent key (legacy: bot key): `mcpk_` + 43 base64url characters; one scope, read < trade < manage.',
  },
  identityTokenBearer: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Identity access token of an ERC-8004-onboarded agent (ES256, `/.well-known/jwks.json`; read 3600 s, trade 300 s); acts as an agent key of its scope.',
  },
  csrfToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description: 'Required with a session on every POST, PUT, PATCH and DELETE (GET /api/nest/auth/csrf).',
  },
  preLoginCsrfCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'csrf_pre',
    description: 'Binds the pre-login CSRF token; set by GET /api/nest/auth/csrf.',
  },
  refreshToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Refresh token (or `refreshToken` in the body).' },
  refreshCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'refresh_token',
    description:
      'The refresh token as browsers keep it: HttpOnly, SameSite=Strict, Path=/api/nest/auth/refresh (Secure when PUBLIC_URL is https); set by login and refresh, cleared by logout.',
  },
  opsBearer: { type: 'http', scheme: 'bearer', description: 'Operators of the service (OPS_TOKEN).' },
};

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' } });

const HEADERS: JsonObject = {
  'X-RateLimit-Limit': integerHeader('Requests allowed in the current window.'),
  'X-RateLimit-Remaining': integerHeader('Requests left in the current window.'),
  'X-RateLimit-Reset': integerHeader('Seconds until the window resets.'),
  'Retry-After': integerHeader('Seconds to wait before retrying.'),
  'X-Request-Id': { description: 'Id of this request (also in error `meta`).', schema: { type: 'string' } },
  'X-Correlation-Id': { description: 'The caller’s `X-Correlation-Id`, else the request id.', schema: { type: 'string' } },
  Deprecation: { description: 'Legacy route: always `true`.', schema: { type: 'string', const: 'true' } },
  Link: { description: 'The replacement of a legacy route (`rel="successor-version"`).', schema: { type: 'string' } },
  'Idempotent-Replayed': {
    description: '`true` when the response is a replay of an earlier call with the same key.',
    schema: { type: 'string' },
  },
};

const PARAMETERS: JsonObject = {
  IdempotencyKey: {
    name: 'X-Idempotency-Key',
    in: 'header',
    required: true,
    description: 'A fresh UUID v4 per unique operation; a replay within 24 hours returns the first response.',
    schema: { type: 'string', format: 'uuid' },
  },
};

const ref = (kind: 'schemas' | 'headers' | 'responses', name: string) => ({ $ref: `#/components/${kind}/${name}` });
const json = (schema: string) => ({ 'application/json': { schema: ref('schemas', schema) } });
export const RATE_LIMIT_HEADERS = {
  'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
  'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
  'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
};
export const LEGACY_HEADERS = { Deprecation: ref('headers', 'Deprecation'), Link: ref('headers', 'Link') };

/** One reusable response per error status, named as routes refer to them. */
const ERROR_RESPONSES: Record<ErrorStatus, [string, JsonObject]> = {
  400: ['BadRequest', { description: 'Invalid body or parameters (validation envelope).', content: json('ValidationError') }],
  401: ['Unauthorized', { description: 'Missing, invalid, expired or revoked credential.', content: json('StandardError') }],
  403: [
    'Forbidden',
    { description: 'Insufficient scope, wrong credential kind, or missing/invalid CSRF token.', content: json('StandardError') },
  ],
  404: ['NotFound', { description: 'Missing, or not the caller’s (indistinguishable).', content: json('StandardError') }],
  409: ['Conflict', { description: 'Conflicting state or duplicate resource.', content: json('DomainError') }],
  413: ['PayloadTooLarge', { description: 'Body over 1 MiB.', content: json('StandardError') }],
  415: [
    'UnsupportedMediaType',
    {
      description: 'A body that is not JSON (Content-Type other than application/json, or an unknown charset).',
      content: json('StandardError'),
    },
  ],
  422: ['UnprocessableEntity', { description: 'Semantic validation failure.', content: json('DomainError') }],
  429: [
    'TooManyRequests',
    {
      description: 'Rate limit exceeded.',
      headers: { ...RATE_LIMIT_HEADERS, 'Retry-After': ref('headers', 'Retry-After') },
      content: json('StandardError'),
    },
  ],
  500: ['InternalError', { description: 'Unhandled server error.', content: json('StandardError') }],
  503: ['ServiceUnavailable', { description: 'A dependency is unavailable; retry later.', content: json('CanonicalFailure') }],
};

/** `{$ref}` to the shared response of an error status. */
export function errorResponseRef(status: ErrorStatus): JsonObject {
  return ref('responses', ERROR_RESPONSES[status][0]);
}

/** The `components` object, with `schemas` from the envelopes plus whatever the converter hoisted. */
export function buildComponents(converter: SchemaConverter): JsonObject {
  const envelopes = Object.fromEntries(
    Object.entries(ERROR_ENVELOPES).map(([name, schema]) => [name, converter.convert(schema, 'output')]),
  );
  return {
    schemas: { ...envelopes, ...converter.definitions },
    responses: Object.fromEntries(Object.values(ERROR_RESPONSES)),
    headers: HEADERS,
    parameters: PARAMETERS,
    securitySchemes: SECURITY_SCHEMES,
  };
}
