import { Router } from 'express';
import { catalogSettingsSchema, type StoredCatalogSettings } from '../../operations/catalog-settings.store.js';
import type { OperationCatalog } from '../../operations/operation-catalog.js';
import { requireBearerToken } from '../ops-auth.middleware.js';
import { parseBody } from '../validate.js';
import { noQuery } from './route-schemas.js';

/**
 * Runtime configuration of the catalog, for operators of the service (ops token):
 * switch families or single operations off and on without a deploy; `tools/list` follows,
 * in every process (see StoredCatalogSettings). An unknown operation name is a 400.
 */
export function createCatalogAdminRoutes(deps: { catalog: OperationCatalog; settings: StoredCatalogSettings; opsToken: string }): Router {
  const router = Router();
  const ops = requireBearerToken(deps.opsToken);
  const view = () => ({
    version: deps.catalog.version,
    settings: deps.catalog.currentSettings(),
    operations: deps.catalog.all().map((op) => ({ name: op.name, family: op.family, minScope: op.minScope, principals: op.principals })),
  });
  router.get('/api/nest/ops/catalog', ops, noQuery, (_req, res) => {
    res.json(view());
  });
  router.put('/api/nest/ops/catalog', ops, noQuery, async (req, res) => {
    await deps.settings.save(parseBody(catalogSettingsSchema, req));
    res.json(view());
  });
  return router;
}
