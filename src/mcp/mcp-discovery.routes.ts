/**
 * `GET /.well-known/mcp.json` (the discovery routes): where the MCP endpoint is, how to talk to it
 * and which credentials it takes. Static per deployment, so it is built once; rate limited
 * per client IP like every `.well-known` route (limits not shown).
 */
import { Router, type RequestHandler } from 'express';
import { RATE_POLICIES, type RateWindow } from '../../kernel/ports/rate-limiter.port.js';
import { MCP_MAX_BODY_BYTES } from './mcp-body.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from './mcp-wire.js';
import { SERVER_CAPABILITIES } from './mcp-dispatcher.js';

export interface McpDiscoveryDeps {
  /** Origin clients reach the service at (`PUBLIC_URL`). */
  publicUrl: string;
  /** The per-IP budget of public routes (`publicRateLimit`). */
  publicLimit: RequestHandler;
}

const perWindow = (windows: readonly RateWindow[]) =>
  Object.fromEntries(windows.map((w) => [`per${w.name[0]!.toUpperCase()}${w.name.slice(1)}`, w.limit]));

/** The discovery document served at `/.well-known/mcp.json`. */
function mcpDiscoveryDocument(publicUrl: string) {
  const base = publicUrl.replace(/\/+$/, '');
  return {
    name: 'agent-runtime-service',
    description: 'Server-executed tools of one always-on Web3 trading agent per endpoint, over MCP (JSON-RPC 2.0).',
    endpoint: `${base}/mcp/{publicId}`,
    transport: {
      type: 'streamable-http',
      stateless: true,
      methods: ['POST'],
      // Answers are single JSON bodies; there are no sessions and no standalone GET stream.
      responseContentType: 'application/json',
      batching: false,
      maxBodyBytes: MCP_MAX_BODY_BYTES,
    },
    protocolVersions: SUPPORTED_PROTOCOL_VERSIONS,
    latestProtocolVersion: LATEST_PROTOCOL_VERSION,
    capabilities: SERVER_CAPABILITIES,
    authentication: {
      scheme: 'bearer',
      header: 'Authorization',
      credentials: [
        {
          type: 'agent-api-key',
          format: 'mcpk_ followed by 43 base64url characters',
          prefix: 'mcpk_',
          issuedBy: `${base}/api/nest/agents/{agentId}/keys`,
          expiresAfterDays: 90,
        },
        {
          type: 'identity-access-token',
          format: 'ES256 JWT (header kid); claims iss, sub (agentId), aud, scope, publicId, jti, iat, exp',
          audience: `${base}/mcp`,
          issuedBy: [`${base}/api/public/erc8004/onboarding/siwe`, `${base}/api/public/erc8004/onboarding/identity`],
          jwksUri: `${base}/.well-known/jwks.json`,
          scopes: ['read', 'trade'],
          lifetimeSeconds: { read: 3600, trade: 300 },
          revocation: `${base}/api/public/erc8004/onboarding/tokens/revoke`,
        },
      ],
    },
    scopes: {
      read: {
        description: 'Status, portfolio, positions, trade history, logs, research, ask.',
        rateLimit: perWindow(RATE_POLICIES.apiKey.read),
      },
      trade: {
        description: 'read, plus submit, cancel and approve orders and manage strategies as policy allows.',
        rateLimit: perWindow(RATE_POLICIES.apiKey.trade),
      },
      manage: {
        description: 'trade, plus keys, configuration, scopes and ownership-sensitive actions.',
        rateLimit: perWindow(RATE_POLICIES.apiKey.manage),
      },
    },
    toolDiscovery: 'Call tools/list with the credential that will call the tools: the list depends on its scope and changes with deploys.',
    events: { sse: `${base}/mcp/{publicId}/events/sse`, websocket: `${base.replace(/^http/, 'ws')}/mcp/{publicId}/events/ws` },
  };
}

export function createMcpDiscoveryRoutes(deps: McpDiscoveryDeps): Router {
  const router = Router();
  const body = JSON.stringify(mcpDiscoveryDocument(deps.publicUrl));
  router.get('/.well-known/mcp.json', deps.publicLimit, (_req, res) => {
    res.set({ 'Cache-Control': 'public, max-age=300', 'Access-Control-Allow-Origin': '*' }).type('application/json').send(body);
  });
  return router;
}
