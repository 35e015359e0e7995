import { Router, type RequestHandler } from 'express';
import type { OperationCatalog } from '../../operations/operation-catalog.js';
import type { RestBinding } from '../routes/operation.routes.js';
import { renderDocsPage } from './docs-page.js';
import { OpenApiCache } from './service-openapi.js';

export interface OpenApiRoutesDeps {
  catalog: OperationCatalog;
  /** Every REST binding of catalog operations that the service mounts. */
  bindings: readonly RestBinding[];
  /** The per-IP budget of public routes (`publicRateLimit`). */
  publicLimit: RequestHandler;
}

/** No script runs on the page and nothing loads from elsewhere; inline styles only. */
const DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * `GET /api/nest/openapi.json` and the readable `GET /api/nest/docs`. Public, like any
 * well-known API's reference, with the per-IP budget of public routes.
 */
export function createOpenApiRoutes(deps: OpenApiRoutesDeps): Router {
  const router = Router();
  const cache = new OpenApiCache(deps.catalog, deps.bindings);
  let page: { document: object; html: string } | undefined;
  const perIp = deps.publicLimit;

  router.get('/api/nest/openapi.json', perIp, (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('application/json').send(cache.current().json);
  });
  router.get('/api/nest/docs', perIp, (_req, res) => {
    const { document } = cache.current();
    // Rendered again only when the document changed.
    if (page?.document !== document) page = { document, html: renderDocsPage(document) };
    res
      .set({ 'Content-Security-Policy': DOCS_CSP, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' })
      .type('html')
      .send(page.html);
  });
  return router;
}
