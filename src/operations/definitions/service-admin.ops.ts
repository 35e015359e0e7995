import { z } from 'zod';
import type { KillSwitchStatus } from '../../../agents/config/kill-switch.service.js';
import { CHAINS, type Chain } from '../../../kernel/ports/venue.port.js';
import { catalogSettingsSchema, type StoredCatalogSettings } from '../catalog-settings.store.js';
import type { OperationCatalog } from '../operation-catalog.js';
import { OPERATION_FAMILIES } from '../operation-families.js';
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

/** Input of `ops_catalog_set`: the stored settings' schema, described. */
const catalogSetSchema = z
  .object({
    disabledFamilies: catalogSettingsSchema.shape.disabledFamilies.describe(
      `Families switched off for everyone: ${OPERATION_FAMILIES.join(', ')}`,
    ),
    disabledOperations: catalogSettingsSchema.shape.disabledOperations.describe('Operations switched off by name'),
  })
  .strict();

const catalogViewSchema = z.object({
  version: z.number().describe('Grows with every change of the catalog or its settings'),
  settings: z.object({ disabledFamilies: z.array(z.enum(OPERATION_FAMILIES)), disabledOperations: z.array(z.string()) }),
  operations: z.array(
    z.object({ name: z.string(), family: z.enum(OPERATION_FAMILIES), minScope: z.string(), principals: z.array(z.string()) }),
  ),
});

/**
 * Runtime configuration of the catalog, for operators of the service: switch families or
 * single operations off and on without a deploy; `tools/list` follows in every process
 * (StoredCatalogSettings). An unknown operation name is a 400.
 */
export function catalogAdminOperations(catalog: OperationCatalog, settings: Pick<StoredCatalogSettings, 'save'>) {
  const view = () => ({
    version: catalog.version,
    settings: catalog.currentSettings(),
    operations: catalog.all().map((op) => ({ name: op.name, family: op.family, minScope: op.minScope, principals: [...op.principals] })),
  });
  return [
    defineUnboundOperation({
      ...ops,
      name: 'ops_catalog_get',
      description: 'The catalog: its version, runtime settings and every operation.',
      family: 'ops',
      input: z.object({}).strict(),
      output: catalogViewSchema,
      annotations: { readOnly: true, idempotent: true },
      handler: async () => view(),
    }),
    defineUnboundOperation({
      ...ops,
      name: 'ops_catalog_set',
      description: 'Switch families or single operations off (and on) for every process, without a deploy.',
      family: 'ops',
      input: catalogSetSchema,
      output: catalogViewSchema,
      annotations: { destructive: false, idempotent: true },
      handler: async (_ctx, input) => {
        await settings.save(input);
        return view();
      },
    }),
  ];
}
