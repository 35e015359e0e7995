import { z } from 'zod';
import type { KillSwitchStatus } from '../../../agents/config/kill-switch.service.js';
import { CHAINS, type Chain } from '../../../kernel/ports/venue.port.js';
import { defineUnboundOperation } from '../operation-definition.js';

/** What the kill-switch operations need of the kill switch; `StoreKillSwitch` is one. */
export interface KillSwitchAdmin {
  status(): Promise<KillSwitchStatus>;
  set(chain: Chain, active: boolean): Promise<KillSwitchStatus>;
}

/** Answer of both kill-switch operations (`KillSwitchStatus`). */
const killSwitchStatusSchema = z.object({
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

/** Input of `ops_kill_switch_set`. */
const killSwitchSetSchema = z
  .object({
    chain: z.enum(CHAINS).describe('The chain to switch'),
    active: z.boolean().describe('true: trading on that chain stops; false: it may resume'),
  })
  .strict();

/** Both kill-switch operations are the service's own: the ops token, manage scope, the service as target. */
const ops = { minScope: 'manage', principals: ['ops'], target: 'service' } as const;

/**
 * The per-chain trading kill switch, for operators of the service (ops token). Every change
 * is logged besides its audit entry: the ops token is shared, so the log line is the record of the act.
 */
export function killSwitchOperations(killSwitch: KillSwitchAdmin, log: { warn(details: Record<string, unknown>, message: string): void }) {
  return [
    defineUnboundOperation({
      ...ops,
      name: 'ops_kill_switch_get',
      description: 'Trading kill switch of every chain.',
      family: 'ops',
      input: z.object({}).strict(),
      output: killSwitchStatusSchema,
      annotations: { readOnly: true, idempotent: true },
      handler: () => killSwitch.status(),
    }),
    defineUnboundOperation({
      ...ops,
      name: 'ops_kill_switch_set',
      description:
        "Turn a chain's kill switch on (trading there stops) or off. Takes effect in this process at once and in every other process " +
        'within one second. Chains named in `TRADING_KILL_SWITCH` stay active: switching one off answers 409.',
      family: 'ops',
      input: killSwitchSetSchema,
      output: killSwitchStatusSchema,
      annotations: { destructive: true, idempotent: true },
      handler: async (ctx, { chain, active }) => {
        const status = await killSwitch.set(chain, active);
        log.warn({ chain, active, requestId: ctx.requestId, correlationId: ctx.correlationId }, 'trading kill switch changed');
        return status;
      },
    }),
  ];
}
