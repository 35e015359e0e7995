import { CATALOG_ADMIN_BINDINGS } from '../http/routes/account.bindings.js';
import { CATALOG_SETTINGS_COLLECTIONS, StoredCatalogSettings } from '../operations/catalog-settings.store.js';
import { catalogAdminOperations } from '../operations/definitions/service-admin.ops.js';
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
    operations: catalogAdminOperations(ctx.catalog, settings),
    bindings: CATALOG_ADMIN_BINDINGS,
    routers: [],
    dueJobs: [],
    start: () => settings.start(),
    stop: async () => settings.stop(),
  };
}
