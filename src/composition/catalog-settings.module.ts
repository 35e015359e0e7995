import { CATALOG_SETTINGS_BINDINGS } from '../http/routes/catalog-settings.bindings.js';
import { CATALOG_SETTINGS_COLLECTIONS, StoredCatalogSettings } from '../operations/catalog-settings.store.js';
import { catalogSettingsOperations } from '../operations/definitions/catalog-settings.ops.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

/**
 * Runtime switches of the catalog (families and operations off, for operators of the service):
 * stored, applied at start, followed from other processes until stop.
 */
export function catalogSettingsModule(ctx: ModuleContext): FeatureModule {
  const settings = new StoredCatalogSettings({ store: ctx.store, catalog: ctx.catalog, clock: ctx.clock, logger: ctx.logger });
  return {
    name: 'catalog-settings',
    definitions: [],
    collections: CATALOG_SETTINGS_COLLECTIONS,
    operations: catalogSettingsOperations(ctx.catalog, settings),
    bindings: CATALOG_SETTINGS_BINDINGS,
    routers: [],
    dueJobs: [],
    start: () => settings.start(),
    stop: async () => settings.stop(),
  };
}
