/**
 * The service's OpenAPI document: the sign-in and service routes plus every REST binding of the
 * catalog, and the catalog's MCP tools as `x-mcp`. Rebuilt only when the catalog changes
 * (registry or runtime settings), since disabled operations answer 404 and are left out.
 */
import type { OperationCatalog } from '../../operations/operation-catalog.js';
import type { RestBinding } from '../routes/operation.routes.js';
import { AUTH_ROUTE_DOCS } from './auth-routes.doc.js';
import { catalogRouteDocs, mcpToolsExtension } from './catalog-routes.doc.js';
import { buildOpenApiDocument } from './openapi-document.js';
import type { JsonObject } from './route-doc.types.js';
import { SERVICE_ROUTE_DOCS } from './service-routes.doc.js';
import { DIRECTORY_ROUTE_DOCS } from './directory-routes.doc.js';
import { MCP_TAG, mcpToolPaths } from './mcp-tool-routes.doc.js';
import { OAUTH_ROUTE_DOCS } from './oauth-routes.doc.js';
import { ONBOARDING_ROUTE_DOCS } from './onboarding-routes.doc.js';

const API_VERSION = '0.1.0';

const TAGS = [
  { name: 'Auth', description: 'Wallet sign-in (SIWS, SIWE), sessions, CSRF and TOTP.' },
  { name: 'Agents', description: 'Operators’ agents. Routes marked with an MCP tool run the same operation as that tool.' },
  {
    name: 'Trading',
    description:
      "Trading account of the signed-in user's default agent (or `agentId`): orders through the safety path, wallets, positions, configuration. Each route runs the same operation as its MCP tool.",
  },
  {
    name: 'Legacy bots',
    description: 'Studio bot routes kept for compatibility; each answers `Deprecation: true` and a `Link` to its replacement.',
  },
  {
    name: 'OAuth',
    description:
      'OAuth for MCP: the authorization server’s endpoints (`/oauth/*`, `/.well-known/oauth-*`), which answer in the OAuth RFCs’ shapes (`{error, error_description}`), and, in the REST envelopes, the consent page’s request and consent and an agent’s grants.',
  },
  { name: 'ERC-8004', description: 'Onboarding of external agents and their identity access tokens.' },
  MCP_TAG,
  { name: 'Ops', description: 'For operators of the service (ops token).' },
  { name: 'Service', description: 'Probes and this documentation.' },
];

/** Builds the document for the catalog as it is now. */
export function serviceOpenApiDocument(catalog: OperationCatalog, bindings: readonly RestBinding<string>[]): JsonObject {
  return buildOpenApiDocument({
    title: 'Agent runtime service',
    version: API_VERSION,
    description:
      'Always-on Web3 trading agents over REST and MCP. Errors use the envelopes in `components.schemas`; listing routes answer `{items, nextCursor?}` with `?limit=&cursor=`.',
    tags: TAGS,
    routes: () => [
      ...AUTH_ROUTE_DOCS,
      ...ONBOARDING_ROUTE_DOCS,
      ...DIRECTORY_ROUTE_DOCS,
      ...OAUTH_ROUTE_DOCS,
      ...catalogRouteDocs(catalog, bindings),
      ...SERVICE_ROUTE_DOCS,
    ],
    paths: (converter) => mcpToolPaths(catalog, converter),
    extensions: (converter) => ({ 'x-mcp': mcpToolsExtension(catalog, converter) }),
  });
}

/** Caches the document and its page per catalog version. */
export class OpenApiCache {
  private cached: { version: number; document: JsonObject; json: string } | undefined;

  constructor(
    private readonly catalog: OperationCatalog,
    private readonly bindings: readonly RestBinding<string>[],
  ) {}

  current(): { document: JsonObject; json: string } {
    if (this.cached?.version !== this.catalog.version) {
      const document = serviceOpenApiDocument(this.catalog, this.bindings);
      this.cached = { version: this.catalog.version, document, json: JSON.stringify(document) };
    }
    return this.cached;
  }
}
