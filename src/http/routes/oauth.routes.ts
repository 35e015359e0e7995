/**
 * The OAuth authorization server of the MCP endpoint, on the wire the OAuth RFCs fix:
 * metadata (RFC 8414, RFC 9728), the authorization endpoint (which hands the browser to the
 * console's consent page), the token endpoint, dynamic registration (RFC 7591) and revocation
 * (RFC 7009). Like sign-in these stay outside the catalog: their callers hold no credential
 * yet, and their answers are the RFCs' shapes, not the REST envelope. Each is counted
 * against the caller's address.
 */
import express, { Router, type Request, type RequestHandler, type Response } from 'express';
import { isAppError, isFaultKind } from '../../../kernel/errors/app-error.js';
import { httpStatusOf } from '../../surface-common/http-status.js';
import type { OAuthClients } from '../../auth/oauth/oauth-clients.js';
import { AuthorizationRedirectError, OAuthProtocolError, UntrustedAuthorizationRequest } from '../../auth/oauth/oauth-errors.js';
import type { OAuthAgents, OAuthGrants } from '../../auth/oauth/oauth-grants.service.js';
import type { OAuthTokens } from '../../auth/oauth/oauth-tokens.service.js';
import { PKCE_METHOD } from '../../auth/oauth/pkce.js';

export interface OAuthRoutesDeps {
  /** PUBLIC_URL without a trailing slash. */
  issuer: string;
  grants: Pick<OAuthGrants, 'authorize' | 'resourceOf'>;
  tokens: Pick<OAuthTokens, 'token' | 'revoke'>;
  clients: Pick<OAuthClients, 'register'>;
  agents: Pick<OAuthAgents, 'byPublicId'>;
  /** The per-IP budget of public routes. */
  publicLimit: RequestHandler;
}

/** What a client may ask for. `manage` is granted only with the operator's authenticator code on the consent page. */
const SCOPES_SUPPORTED = ['read', 'trade', 'manage'];
/**
 * What an agent's resource metadata proposes: clients ask for what it lists by default, and an
 * operator should not be asked for the authenticator code unless the client needs `manage`.
 */
const RESOURCE_SCOPES = ['read', 'trade'];

/** Token, registration and revocation answers hold secrets or client state: no cache keeps them (RFC 6749 §5.1). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
/** Browser-based MCP clients call these from their own origin; no cookie is involved, so any origin may. */
const CORS = { 'Access-Control-Allow-Origin': '*' };
const PREFLIGHT = {
  ...CORS,
  'Access-Control-Allow-Methods': 'GET, POST, OPTIONS',
  'Access-Control-Allow-Headers': 'Authorization, Content-Type, MCP-Protocol-Version',
  'Access-Control-Max-Age': '86400',
};

const FORM_LIMIT = '16kb';
const REGISTRATION_LIMIT = '64kb';

export function createOAuthRoutes(deps: OAuthRoutesDeps): Router {
  const router = Router();
  const perIp = deps.publicLimit;
  const { issuer } = deps;

  for (const path of [
    '/.well-known/oauth-authorization-server',
    '/.well-known/oauth-protected-resource/mcp/:publicId',
    '/oauth/token',
    '/oauth/register',
    '/oauth/revoke',
  ])
    router.options(path, (_req, res) => void res.status(204).set(PREFLIGHT).end());

  router.get('/.well-known/oauth-authorization-server', perIp, (_req, res) => {
    res.set({ ...CORS, 'Cache-Control': 'public, max-age=300' }).json({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: [PKCE_METHOD],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
      scopes_supported: SCOPES_SUPPORTED,
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });

  router.get('/.well-known/oauth-protected-resource/mcp/:publicId', perIp, async (req, res) => {
    const agent = await deps.agents.byPublicId(String(req.params.publicId));
    res.set(CORS);
    if (!agent) return void res.status(404).json({ error: 'not_found', error_description: 'No agent has this MCP URL' });
    res.set('Cache-Control', 'public, max-age=60').json({
      resource: deps.grants.resourceOf(agent.publicId),
      authorization_servers: [issuer],
      scopes_supported: RESOURCE_SCOPES,
      bearer_methods_supported: ['header'],
      resource_name: agent.name,
    });
  });

  router.get('/oauth/authorize', perIp, async (req, res) => {
    try {
      res.redirect(302, await deps.grants.authorize(req.query as Record<string, unknown>));
    } catch (error) {
      if (error instanceof AuthorizationRedirectError) return void res.redirect(302, error.redirectTo);
      if (error instanceof UntrustedAuthorizationRequest) return void errorPage(res, error.description);
      throw error;
    }
  });

  const form = express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: 50 });
  router.post('/oauth/token', perIp, form, async (req, res) => {
    res.set({ ...CORS, ...NO_STORE });
    await answer(res, async () => res.json(await deps.tokens.token(formParams(req))));
  });
  router.post('/oauth/revoke', perIp, form, async (req, res) => {
    res.set({ ...CORS, ...NO_STORE });
    await answer(res, async () => {
      await deps.tokens.revoke(formParams(req));
      res.status(200).end();
    });
  });
  const json = express.json({ limit: REGISTRATION_LIMIT });
  router.post('/oauth/register', perIp, json, async (req, res) => {
    res.set({ ...CORS, ...NO_STORE });
    await answer(res, async () => res.status(201).json(await deps.clients.register(req.body)));
  });
  // A malformed body, from either parser, in the RFCs' words rather than the REST envelope.
  router.use(['/oauth/token', '/oauth/revoke', '/oauth/register'], ((error, _req, res, next) => {
    if (res.headersSent) return next(error);
    const status = typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : 400;
    if (status >= 500) return next(error);
    res
      .status(400)
      .set({ ...CORS, ...NO_STORE })
      .json({ error: 'invalid_request', error_description: 'The request body could not be read' });
  }) as express.ErrorRequestHandler);
  return router;
}

/** Runs an endpoint, answering its OAuth refusals as `{error, error_description}`; anything else goes to the error middleware. */
async function answer(res: Response, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    if (error instanceof OAuthProtocolError) return void res.status(error.status).json(error.body());
    // A rate limit or the store being down keeps its status; the body says it in OAuth's words too.
    if (isAppError(error) && isFaultKind(error.kind))
      return void res.status(httpStatusOf(error)).json({ error: 'temporarily_unavailable', error_description: error.message });
    throw error;
  }
}

/**
 * The form fields of a token or revocation request: each once, as text. A field sent twice is
 * refused (RFC 6749 §3.2: parameters must not be repeated); a body of another type too.
 */
function formParams(req: Request): Record<string, string> {
  if (!req.is('application/x-www-form-urlencoded'))
    throw new OAuthProtocolError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries((req.body ?? {}) as Record<string, unknown>)) {
    if (typeof value !== 'string') throw new OAuthProtocolError('invalid_request', `${name} was sent more than once`);
    params[name] = value;
  }
  return params;
}

/** An authorization request that cannot be sent back to its client: a page that says why, and sends nobody anywhere. */
function errorPage(res: Response, description: string): void {
  res
    .status(400)
    .set({ 'Cache-Control': 'no-store', 'Content-Security-Policy': "default-src 'none'" })
    .type('html')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization request refused</title></head>` +
        `<body><h1>Authorization request refused</h1><p>${escapeHtml(description)}</p>` +
        `<p>The application that sent you here is not known to this service, or asked to send you somewhere it did not register. Nothing was shared with it.</p></body></html>`,
    );
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}
