import { Router } from 'express';
import { z } from 'zod';
import type { OperationCatalog } from '../../operations/operation-catalog.js';
import type { OperationFamily } from '../../operations/operation.types.js';
import { requireBearerToken } from '../ops-auth.middleware.js';
import { parseBody } from '../validate.js';

export const OPERATION_FAMILIES = ['chat', 'research', 'portfolio', 'trading', 'risk', 'strategy', 'wallet', 'keys', 'agents'] as const satisfies readonly OperationFamily[];
/** Body of `PUT /api/nest/ops/catalog`. */
export const catalogSettingsSchema = z
  .object({
    disabledFamilies: z.array(z.enum(OPERATION_FAMILIES)).max(OPERATION_FAMILIES.length).default([]),
    disabledOperations: z.array(z.string().min(1).max(128)).max(500).default([]),
  })
  .strict();

/**
 * Runtime configuration of the catalog, for operators of the service (ops token):
 * switch families or single operations off and on without a deploy; `tools/list` follows.
 */
export function createCatalogAdminRoutes(deps: { catalog: OperationCatalog; opsToken: string }): Router {
  const router = Router();
  const ops = requireBearerToken(deps.opsToken);
  const view = () => ({
    version: deps.catalog.version,
    settings: deps.catalog.currentSettings(),
    operations: deps.catalog.all().map((op) => ({ name: op.name, family: op.family, minScope: op.minScope, principals: op.principals })),
  });
  router.get('/api/nest/ops/catalog', ops, (_req, res) => {
    res.json(view());
  });
  router.put('/api/nest/ops/catalog', ops, (req, res) => {
    deps.catalog.configure(parseBody(catalogSettingsSchema, req));
    res.json(view());
  });
  return router;
}
