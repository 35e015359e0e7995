import { Router, type RequestHandler } from 'express';
import type { OperationCatalog } from '../../operations/operation-catalog.js';
import type { RestBinding } from '../routes/operation.routes.js';
import { DOCS_ASSET_PATH, DOCS_CSP, DOCS_PATH, DocsPage } from './docs-page.js';
import { AppError } from '../../../kernel/errors/app-error.js';
import { etagMatches } from '../../../kernel/shared/strong-etag.js';
import { OpenApiCache } from './service-openapi.js';

export interface OpenApiRoutesDeps {
  catalog: OperationCatalog;
  /** Every REST binding of catalog operations that the service mounts. */
  bindings: readonly RestBinding<string>[];
  /** The per-IP budget of public routes (`publicRateLimit`). */
  publicLimit: RequestHandler;
}

/**
 * `GET /api/nest/openapi.json`, the readable `GET /api/nest/docs` and the renderer's files.
 * Public, like any well-known API's reference, with the per-IP budget of public routes.
 */
export function createOpenApiRoutes(deps: OpenApiRoutesDeps): Router {
  const router = Router();
  const cache = new OpenApiCache(deps.catalog, deps.bindings);
  const page = new DocsPage();
  const perIp = deps.publicLimit;

  router.get('/api/nest/openapi.json', perIp, (_req, res) => {
    res.set('Cache-Control', 'no-cache').type('application/json').send(cache.current().json);
  });
  router.get(DOCS_PATH, perIp, (_req, res) => {
    res.set({ 'Content-Security-Policy': DOCS_CSP, 'Cache-Control': 'no-cache' }).type('html').send(page.html);
  });
  router.get(`${DOCS_ASSET_PATH}/:file`, perIp, (req, res) => {
    const asset = page.asset(String(req.params.file));
    if (!asset) throw AppError.notFound();
    // Revalidated after a day: an upgrade of the renderer changes the ETag.
    res.set({ 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=86400', ETag: asset.etag });
    if (etagMatches(req.get('if-none-match'), asset.etag)) return void res.status(304).end();
    res.send(asset.body);
  });
  return router;
}
