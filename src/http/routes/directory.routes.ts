/**
 * The public directory (the public onboarding and directory routes; public directory and agent cards): no
 * credential, the per-IP budget of public routes, answers any cache may keep for 30 s with a
 * strong `ETag` of the body (`If-None-Match` → 304). Not catalog operations: there is no
 * principal to call them as, as for onboarding.
 */
import { Router, type Request, type RequestHandler, type Response } from 'express';
import type { DirectoryService } from '../../directory/directory.service.js';
import { directoryPageQuerySchema, feedQuerySchema } from '../../directory/card.schemas.js';
import { validate } from '../validate.js';
import { noQuery } from './route-schemas.js';
import { etagMatches, strongEtag } from '../../../kernel/shared/strong-etag.js';

export const DIRECTORY_PREFIX = '/api/public/erc8004';

export interface DirectoryRoutesDeps {
  directory: DirectoryService;
  /** The per-IP budget of public routes. */
  publicLimit: RequestHandler;
}

/** The query string as the schema takes it: `limit` a number, a repeated parameter left as it is (and refused). */
function pageQuery(req: Request): Record<string, unknown> {
  const { limit, ...rest } = req.query;
  return { ...rest, ...(limit === undefined ? {} : { limit: typeof limit === 'string' && limit.trim() !== '' ? Number(limit) : limit }) };
}

/** Sends `body` with its ETag, or 304 when the client holds it already. */
function cached(req: Request, res: Response, body: unknown): void {
  const json = JSON.stringify(body);
  const etag = strongEtag(json);
  res.set({ 'Cache-Control': 'public, max-age=30', ETag: etag });
  if (etagMatches(req.get('if-none-match'), etag)) {
    res.status(304).end();
    return;
  }
  res.type('application/json').send(json);
}

export function createDirectoryRoutes(deps: DirectoryRoutesDeps): Router {
  const router = Router();
  const perIp = deps.publicLimit;
  const { directory } = deps;
  router.get(`${DIRECTORY_PREFIX}/agents/page`, perIp, async (req, res) => {
    const query = validate(directoryPageQuerySchema, pageQuery(req));
    cached(req, res, await directory.page(query));
  });
  router.get(`${DIRECTORY_PREFIX}/discovery/feed`, perIp, async (req, res) => {
    const query = validate(feedQuerySchema, pageQuery(req));
    cached(req, res, await directory.feed(query));
  });
  router.get(`${DIRECTORY_PREFIX}/agents/:publicId`, perIp, noQuery, async (req, res) => {
    cached(req, res, await directory.card(String(req.params.publicId)));
  });
  router.get(`${DIRECTORY_PREFIX}/agents/:publicId/snapshot`, perIp, noQuery, async (req, res) => {
    cached(req, res, await directory.snapshot(String(req.params.publicId)));
  });
  return router;
}
