import { z } from 'zod';
import { catalogSettingsSchema, type StoredCatalogSettings } from '../catalog-settings.store.js';
import type { OperationCatalog } from '../operation-catalog.js';
import { OPERATION_FAMILIES } from '../operation-families.js';
import { defineUnboundOperation } from '../operation-definition.js';

/** Both catalog-settings operations are the service's own: the ops token, manage scope, the service as target. */
const ops = { minScope: 'manage', principals: ['ops'], target: 'service' } as const;

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
export function catalogSettingsOperations(catalog: OperationCatalog, settings: Pick<StoredCatalogSettings, 'save'>) {
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
