/**
 * Ops inspection of runtime actors: list by type, one actor's view, its journal, and a machine
 * type's statechart (what the console's actor inspector draws). Read only, behind the ops bearer token, and a thin layer over `ActorInspector`.
 */
import { Router, type Request } from 'express';
import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ActorInspector } from '../runtime/actor-inspector.js';
import { requireBearerToken } from './ops-auth.middleware.js';
import { parseQuery } from './validate.js';
import { noQuery, noQuerySchema } from './routes/route-schemas.js';

export const OPS_BASE_PATH = '/api/nest/ops';
export const OPS_MAX_PAGE_SIZE = 200;
export const OPS_DEFAULT_PAGE_SIZE = 50;

const limit = z.coerce.number().int().min(1).max(OPS_MAX_PAGE_SIZE).default(OPS_DEFAULT_PAGE_SIZE);

const ListQuery = z
  .object({
    state: z.string().min(1).max(128).optional(),
    limit,
    cursor: z.string().min(1).max(1024).optional(),
  })
  .strict(); // a typo (`stat=failed`) is a 400, not a silently unfiltered list

const JournalQuery = z
  .object({
    afterSeq: z.coerce.number().int().min(0).optional(),
    limit,
  })
  .strict();

export interface OpsRoutesDeps {
  inspector: ActorInspector;
  opsToken: string;
}

export function createOpsRouter(deps: OpsRoutesDeps): Router {
  const { inspector } = deps;
  const router = Router();

  // Guard the whole prefix, so unknown ops paths also answer 401 to strangers.
  router.use(OPS_BASE_PATH, requireBearerToken(deps.opsToken));

  /** The `:type` parameter, when the runtime knows it; 404 otherwise. */
  const knownType = (req: Request<{ type: string }>): string => {
    const { type } = req.params;
    if (!inspector.types().includes(type)) throw AppError.notFound(`Unknown actor type: ${type}`);
    return type;
  };

  router.get(`${OPS_BASE_PATH}/actors`, noQuery, (_req, res) => {
    res.json({ types: inspector.types() });
  });

  router.get(`${OPS_BASE_PATH}/machines/:type`, noQuery, (req: Request<{ type: string }>, res) => {
    const chart = inspector.machine(knownType(req));
    if (chart === null) throw AppError.notFound(`Unknown actor type: ${req.params.type}`);
    res.json(chart);
  });

  router.get(`${OPS_BASE_PATH}/actors/:type`, async (req, res) => {
    const type = knownType(req);
    const query = parseQuery(ListQuery, req);
    res.json(await inspector.list(type, query));
  });

  router.get(`${OPS_BASE_PATH}/actors/:type/:id`, async (req, res) => {
    parseQuery(noQuerySchema, req);
    const view = await inspector.inspect(knownType(req), req.params.id);
    if (view === null) throw AppError.notFound('Actor not found');
    res.json(view);
  });

  router.get(`${OPS_BASE_PATH}/actors/:type/:id/journal`, async (req, res) => {
    const type = knownType(req);
    const query = parseQuery(JournalQuery, req);
    res.json(await inspector.journal(type, req.params.id, query));
  });

  return router;
}
