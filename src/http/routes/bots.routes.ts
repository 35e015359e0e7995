import { Router, type RequestHandler } from 'express';
import { z } from 'zod';
import { ApiKeysService, SCOPES, createKeySchema, stepUpTokenSchema } from '../../accounts/api-keys.service.js';
import { BotsService, createBotSchema, mcpConfigSchema, patchBotSchema, replaceBotSchema } from '../../accounts/bots.service.js';
import type { StepUpService } from '../../auth/step-up/step-up.service.js';
import { authenticated, sessionOf, type AuthMiddlewareDeps } from '../auth/auth.middleware.js';
import { objectBody, parseBody, parseQuery, validate } from '../validate.js';
import { codeBodySchema, noQuery, page, pageQuerySchema, param } from './route-schemas.js';

export interface BotRoutesDeps {
  auth: AuthMiddlewareDeps;
  bots: BotsService;
  keys: ApiKeysService;
  stepUp: StepUpService;
}

/** Body of `POST /api/nest/bots/:botId/mcp/token` (scope defaults to read); every field is optional. */
export const rotateTokenSchema = z.object({ scope: z.enum(SCOPES).default('read'), stepUpToken: stepUpTokenSchema }).strict();

/** Every legacy route says it is deprecated and where its replacement lives (CONTRACT "Legacy routes"). */
const deprecated: RequestHandler = (_req, res, next) => {
  res.set({ Deprecation: 'true', Link: '</api/nest/agents>; rel="successor-version"' });
  next();
};

/** Legacy Studio bot management and bot-scoped MCP keys (interface 4.7). */
export function createBotRoutes(deps: BotRoutesDeps): Router {
  const { bots, keys } = deps;
  const router = Router();
  const operator = [deprecated, ...authenticated(deps.auth, ['session'])];
  // Routes of one bot take no query string (the key list, which pages, is written out below).
  const owned = (handler: (userId: string, botId: string, req: Parameters<RequestHandler>[0]) => Promise<unknown>, status = 200): RequestHandler[] => [
    ...operator,
    noQuery,
    async (req, res) => {
      const { userId } = sessionOf(res);
      const botId = param(req, req.params.botId === undefined ? 'id' : 'botId');
      res.status(status).json(await handler(userId, botId, req));
    },
  ];

  router.get('/api/nest/bots', ...operator, async (req, res) => {
    res.json(await bots.list(sessionOf(res).userId, page(parseQuery(pageQuerySchema, req))));
  });
  router.get('/api/nest/bots/list', ...operator, async (req, res) => {
    const { items, nextCursor } = await bots.list(sessionOf(res).userId, page(parseQuery(pageQuerySchema, req)));
    res.json({ items: items.map(({ id, name, status }) => ({ id, name, status })), ...(nextCursor ? { nextCursor } : {}) });
  });
  router.post('/api/nest/bots', ...operator, noQuery, async (req, res) => {
    res.status(201).json(await bots.create(sessionOf(res).userId, parseBody(createBotSchema, req)));
  });
  router.get('/api/nest/bots/:id', ...owned((userId, botId) => bots.get(userId, botId)));
  router.patch('/api/nest/bots/:id', ...owned((userId, botId, req) => bots.update(userId, botId, parseBody(patchBotSchema, req))));
  router.put('/api/nest/bots/:id', ...owned((userId, botId, req) => bots.update(userId, botId, parseBody(replaceBotSchema, req))));
  router.delete('/api/nest/bots/:id', ...owned((userId, botId) => bots.delete(userId, botId)));

  // `{config, keys}` of interface 4.7, paged like every list: `nextCursor` leads to keys past the first page.
  router.get('/api/nest/bots/:botId/mcp', ...operator, async (req, res) => {
    const botId = param(req, 'botId');
    const query = page(parseQuery(pageQuerySchema, req));
    const config = await bots.mcpConfig(sessionOf(res).userId, botId);
    const { items, nextCursor } = await keys.list({ type: 'bot', id: botId }, query);
    res.json({ config, keys: items, ...(nextCursor ? { nextCursor } : {}) });
  });
  router.put(
    '/api/nest/bots/:botId/mcp',
    ...owned(async (userId, botId, req) => ({ config: await bots.configureMcp(userId, botId, validate(mcpConfigSchema, objectBody(req))) })),
  );
  router.post(
    '/api/nest/bots/:botId/mcp/keys',
    ...owned(async (userId, botId, req) => {
      await bots.ownedView(userId, botId);
      return keys.create(userId, { type: 'bot', id: botId }, parseBody(createKeySchema, req));
    }, 201),
  );
  router.delete(
    '/api/nest/bots/:botId/mcp/keys/:keyId',
    ...owned(async (userId, botId, req) => {
      await bots.ownedView(userId, botId);
      return keys.revoke({ type: 'bot', id: botId }, param(req, 'keyId'));
    }),
  );
  router.post(
    '/api/nest/bots/:botId/mcp/step-up',
    ...owned(async (userId, botId, req) => {
      await bots.ownedView(userId, botId);
      return deps.stepUp.issue({ userId, target: `bot:${botId}`, code: parseBody(codeBodySchema, req).code });
    }),
  );
  // Rotation: a new token (a bot key) is created first, then the old one is revoked.
  router.post(
    '/api/nest/bots/:botId/mcp/token',
    ...owned(async (userId, botId, req) => {
      const previous = (await bots.ownedView(userId, botId)).context as { mcpTokenKeyId?: string };
      // Every field is optional: no body is no fields.
      const body = validate(rotateTokenSchema, objectBody(req));
      const owner = { type: 'bot' as const, id: botId };
      // The key it replaces is revoked right after: a rotation at the key cap still rotates.
      const created = await keys.create(userId, owner, { name: 'MCP access token', ...body }, previous.mcpTokenKeyId ? { replaces: previous.mcpTokenKeyId } : {});
      await bots.recordTokenRotation(botId, created.keyId);
      const revoked = previous.mcpTokenKeyId ? await keys.revoke(owner, previous.mcpTokenKeyId) : undefined;
      return { ...created, ...(revoked ? { revokedKeyId: revoked.keyId } : {}) };
    }, 201),
  );
  return router;
}
