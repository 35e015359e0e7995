/**
 * The OAuth authorization server's own endpoints (`oauth.routes.ts`): metadata, authorization,
 * token, registration and revocation. They answer in the OAuth RFCs' shapes, not the REST
 * envelopes, so each names its own errors. The token and revocation forms are read field by
 * field there (no schema to import); they are mirrored here with what that code requires.
 */
import { z } from 'zod';
import { clientMetadataSchema } from '../../auth/oauth/oauth-clients.js';
import type { OwnErrorDoc, RouteDoc } from './route-doc.types.js';

const TAG = 'OAuth';
const scopeList = z.array(z.enum(['read', 'trade', 'manage']));

const oauthErrorSchema = z.object({
  error: z.string().describe('`invalid_request`, `invalid_client`, `invalid_grant`, `unsupported_grant_type`, `invalid_scope`, …'),
  error_description: z.string().describe('Why, in English, for the client’s author'),
});
const oauthError = (description: string): OwnErrorDoc => ({ description, schema: oauthErrorSchema });
const temporarily = oauthError('`temporarily_unavailable`: the store or a rate budget could not be reached; retry later.');

const serverMetadataSchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  registration_endpoint: z.string(),
  revocation_endpoint: z.string(),
  response_types_supported: z.array(z.literal('code')),
  response_modes_supported: z.array(z.literal('query')),
  grant_types_supported: z.array(z.enum(['authorization_code', 'refresh_token'])),
  code_challenge_methods_supported: z.array(z.literal('S256')),
  token_endpoint_auth_methods_supported: z.array(z.literal('none')),
  revocation_endpoint_auth_methods_supported: z.array(z.literal('none')),
  scopes_supported: scopeList,
  client_id_metadata_document_supported: z.literal(true),
  authorization_response_iss_parameter_supported: z.literal(true),
});

const resourceMetadataSchema = z.object({
  resource: z.string().describe('The agent’s MCP URL: tokens are accepted there only'),
  authorization_servers: z.array(z.string()),
  scopes_supported: scopeList,
  bearer_methods_supported: z.array(z.literal('header')),
  resource_name: z.string(),
});

const authorizeQuery = z.object({
  client_id: z
    .string()
    .describe('A `dcr_` id from registration, or the https URL of a Client ID Metadata Document (fetched from public addresses only)'),
  redirect_uri: z.string().optional().describe('One the client registered; optional when it registered exactly one'),
  response_type: z.literal('code'),
  code_challenge: z.string().describe('PKCE: base64url SHA-256 of the verifier'),
  code_challenge_method: z.literal('S256'),
  scope: z.string().optional().describe('Space-separated: read, trade, manage (offline_access and openid are ignored)'),
  state: z.string().max(1024).optional(),
  resource: z.string().optional().describe('An agent’s MCP URL: the grant is bound to that agent'),
});

const tokenForm = z.object({
  grant_type: z.enum(['authorization_code', 'refresh_token']),
  client_id: z.string(),
  code: z.string().optional().describe('authorization_code: the `mcpac_` code'),
  code_verifier: z.string().optional().describe('authorization_code: the PKCE verifier'),
  redirect_uri: z.string().optional().describe('authorization_code: as in the authorization request, when it named one'),
  refresh_token: z.string().optional().describe('refresh_token: the `mcprt_` token; it is replaced by this call'),
  scope: z.string().optional().describe('refresh_token: no wider than the grant’s'),
  resource: z.string().optional().describe('The agent’s MCP URL the grant is for'),
});

const tokenResponseSchema = z.object({
  access_token: z.string().describe('`mcpat_…`, 15 minutes, on the granted agent’s MCP URL only'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  refresh_token: z.string().describe('`mcprt_…`, rotated on every use; a spent one presented again revokes the grant'),
  scope: z.enum(['read', 'trade', 'manage']),
});

const revokeForm = z.object({
  token: z.string().describe('An access or refresh token of the grant'),
  client_id: z.string().optional(),
});

const registrationResponseSchema = z.object({
  client_id: z.string().describe('`dcr_…`'),
  client_id_issued_at: z.number().int(),
  client_name: z.string(),
  client_uri: z.string().optional(),
  redirect_uris: z.array(z.string()),
  grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])),
  response_types: z.array(z.literal('code')),
  token_endpoint_auth_method: z.literal('none'),
});

const FORM = 'application/x-www-form-urlencoded';

/** Route descriptions of `createOAuthRoutes`. */
export const OAUTH_ROUTE_DOCS: RouteDoc[] = [
  {
    method: 'get',
    path: '/.well-known/oauth-authorization-server',
    tag: TAG,
    summary: 'Authorization server metadata (RFC 8414)',
    auth: [],
    response: serverMetadataSchema,
    errors: [429],
  },
  {
    method: 'get',
    path: '/.well-known/oauth-protected-resource/mcp/:publicId',
    tag: TAG,
    summary: 'Protected resource metadata of an agent’s MCP URL (RFC 9728)',
    description: 'Named by the `WWW-Authenticate` header of a 401 on `/mcp/:publicId` and its event streams.',
    auth: [],
    response: resourceMetadataSchema,
    errors: [429],
    ownErrors: { 404: oauthError('`not_found`: no agent has this MCP URL.') },
  },
  {
    method: 'get',
    path: '/oauth/authorize',
    tag: TAG,
    summary: 'Authorization endpoint: to the console’s consent page',
    description:
      'Stores the request and redirects the browser to `/oauth/consent?authorization_id=…`. A problem with a trusted client and ' +
      'redirect URI goes back to the client with `error`, `state` and `iss`; an unknown client, a document that cannot be read ' +
      'or is on an internal address, or an unregistered redirect URI gets an HTML error page and no redirect.',
    auth: [],
    query: authorizeQuery,
    status: 302,
    errors: [429],
    ownErrors: {
      400: {
        description: 'An HTML page saying why the request was refused; nobody is redirected.',
        schema: z.string(),
        contentType: 'text/html',
      },
    },
  },
  {
    method: 'post',
    path: '/oauth/token',
    tag: TAG,
    summary: 'Token endpoint: exchange a code, or refresh (RFC 6749)',
    description: 'Public clients only: PKCE proves the client, no secret is sent.',
    auth: [],
    body: tokenForm,
    bodyContentType: FORM,
    response: tokenResponseSchema,
    errors: [429],
    ownErrors: {
      400: oauthError(
        '`invalid_request`, `invalid_grant` (code or refresh token not valid, spent or another client’s), `unsupported_grant_type`, `invalid_scope`, `invalid_target`.',
      ),
      503: temporarily,
    },
  },
  {
    method: 'post',
    path: '/oauth/register',
    tag: TAG,
    summary: 'Dynamic client registration (RFC 7591)',
    description: 'Public clients of the code flow only (`token_endpoint_auth_method: none`).',
    auth: [],
    body: clientMetadataSchema,
    status: 201,
    response: registrationResponseSchema,
    errors: [429],
    ownErrors: { 400: oauthError('`invalid_client_metadata` or `invalid_redirect_uri`.'), 503: temporarily },
  },
  {
    method: 'post',
    path: '/oauth/revoke',
    tag: TAG,
    summary: 'Token revocation (RFC 7009)',
    description:
      'Ends the token’s whole grant. An unknown token, or another client’s, is answered the same 200, so revocation tells nobody which tokens exist.',
    auth: [],
    body: revokeForm,
    bodyContentType: FORM,
    ownErrors: { 400: oauthError('`invalid_request`: no token, a field sent twice, or a body that is not a form.'), 503: temporarily },
    errors: [429],
  },
];
