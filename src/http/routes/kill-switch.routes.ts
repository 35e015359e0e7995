import { Router } from 'express';
import { z } from 'zod';
import type { KillSwitchStatus } from '../../../agents/kill-switch.service.js';
import { CHAINS, type Chain } from '../../ports/venue.port.js';
import type { RouteDoc } from '../openapi/route-doc.types.js';
import { requireBearerToken } from '../ops-auth.middleware.js';
import { OPS_BASE_PATH } from '../ops.routes.js';
import { requestContext } from '../request-context.middleware.js';
import { parseBody } from '../validate.js';
import { noQuery } from './route-schemas.js';

/** Under the ops prefix, so the ops router's guard answers strangers before this one is reached. */
export const KILL_SWITCH_PATH = `${OPS_BASE_PATH}/trading/kill-switch`;

/** Body of `PUT /api/nest/ops/trading/kill-switch`. */
export const killSwitchBodySchema = z.object({ chain: z.enum(CHAINS), active: z.boolean() }).strict();

/** Answer of both routes (`KillSwitchStatus`). */
export const killSwitchStatusSchema = z.object({
  active: z.array(z.enum(CHAINS)),
  chains: z.array(
    z.object({
      chain: z.enum(CHAINS),
      active: z.boolean(),
      source: z.enum(['configuration', 'operator']).optional(),
      since: z.string().optional(),
    }),
  ),
});

/** What the routes need of the kill switch; `StoreKillSwitch` is one. */
export interface KillSwitchAdmin {
  status(): Promise<KillSwitchStatus>;
  set(chain: Chain, active: boolean): Promise<KillSwitchStatus>;
}

export interface KillSwitchRoutesDeps {
  killSwitch: KillSwitchAdmin;
  opsToken: string;
  /** Every change is logged: the ops token is shared, so the log line is the record of the act. */
  log: { warn(details: Record<string, unknown>, message: string): void };
}

/**
 * The per-chain trading kill switch, for operators of the service (ops bearer token):
 * `GET` shows every chain, `PUT {chain, active}` switches one for every process.
 */
export function createKillSwitchRoutes(deps: KillSwitchRoutesDeps): Router {
  const router = Router();
  const ops = requireBearerToken(deps.opsToken);
  router.get(KILL_SWITCH_PATH, ops, noQuery, async (_req, res) => {
    res.json(await deps.killSwitch.status());
  });
  router.put(KILL_SWITCH_PATH, ops, noQuery, async (req, res) => {
    const { chain, active } = parseBody(killSwitchBodySchema, req);
    const status = await deps.killSwitch.set(chain, active);
    deps.log.warn({ chain, active, ...requestContext(res) }, 'trading kill switch changed');
    res.json(status);
  });
  return router;
}

/** The routes in the OpenAPI document's terms (for `service-openapi.ts`). */
export const KILL_SWITCH_ROUTE_DOCS: RouteDoc[] = [
  { method: 'get', path: KILL_SWITCH_PATH, tag: 'Ops', summary: 'Trading kill switch of every chain', auth: ['ops'], response: killSwitchStatusSchema },
  {
    method: 'put',
    path: KILL_SWITCH_PATH,
    tag: 'Ops',
    summary: "Turn a chain's kill switch on (trading there stops) or off",
    description:
      'Takes effect in this process at once and in every other process within one second. Chains named in ' +
      '`TRADING_KILL_SWITCH` stay active: switching one off answers 409.',
    auth: ['ops'],
    body: killSwitchBodySchema,
    response: killSwitchStatusSchema,
    errors: [409],
  },
];
