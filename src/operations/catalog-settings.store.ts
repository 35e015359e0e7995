import type { Logger } from 'pino';
import { z } from 'zod';
import { AppError } from '../../kernel/errors/app-error.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { CollectionSpec, StorePort } from '../../kernel/ports/store.port.js';
import { updateRecord } from '../../kernel/shared/record-update.js';
import type { CatalogSettings, OperationCatalog } from './operation-catalog.js';
import { OPERATION_FAMILIES } from './operation-families.js';

/** Body of `PUT /api/nest/ops/catalog`, and the stored document. */
export const catalogSettingsSchema = z
  .object({
    disabledFamilies: z.array(z.enum(OPERATION_FAMILIES)).max(OPERATION_FAMILIES.length).default([]),
    disabledOperations: z.array(z.string().min(1).max(128)).max(500).default([]),
  })
  .strict();

const SETTINGS_COLLECTION = 'ops.settings';
const CATALOG_DOC_ID = 'catalog';
export const CATALOG_SETTINGS_COLLECTIONS: CollectionSpec[] = [{ name: SETTINGS_COLLECTION, indexes: [] }];
/** How often a process applies what another one saved: the longest they serve different catalogs. */
const CATALOG_SETTINGS_REFRESH_MS = 1000;

export interface StoredCatalogSettingsDeps {
  store: StorePort;
  catalog: OperationCatalog;
  clock: ClockPort;
  logger: Pick<Logger, 'error'>;
  /** Default `CATALOG_SETTINGS_REFRESH_MS`. */
  refreshMs?: number;
}

/**
 * The catalog's runtime settings in the store, so that every process serves the same
 * catalog and a restart keeps it: `save` stores and applies at once; `start` applies the
 * stored settings, then every `refreshMs` what another process saved since.
 */
export class StoredCatalogSettings {
  /** Version of the stored document last applied (0: none). */
  private applied = 0;
  private cancel: (() => void) | undefined;

  constructor(private readonly deps: StoredCatalogSettingsDeps) {}

  /** Applies the stored settings (before the service serves), then keeps following them. */
  async start(): Promise<void> {
    await this.refresh();
    const tick = () => {
      this.cancel = this.deps.clock.setTimer(() => {
        void this.refresh()
          .catch((error: unknown) => this.deps.logger.error({ err: error }, 'catalog settings refresh failed'))
          .finally(() => this.cancel && tick());
      }, this.deps.refreshMs ?? CATALOG_SETTINGS_REFRESH_MS);
    };
    tick();
  }

  stop(): void {
    const cancel = this.cancel;
    this.cancel = undefined;
    cancel?.();
  }

  /** Stores `settings` for every process (`updateRecord`: compare-and-set, retried on conflict) and applies them here. */
  async save(settings: CatalogSettings): Promise<void> {
    const unknown = settings.disabledOperations.filter((name) => !this.deps.catalog.get(name));
    if (unknown.length) throw AppError.validation(unknown.map((name) => `Unknown operation: ${name}`));
    // Last writer wins: the settings replace whatever is stored; CAS only orders the versions.
    const { doc } = await updateRecord<CatalogSettings>(this.deps.store, { collection: SETTINGS_COLLECTION, id: CATALOG_DOC_ID }, () => ({
      data: settings,
    }));
    this.apply(doc!.version, settings);
  }

  /** Applies the stored settings when they changed since the last applied version. */
  async refresh(): Promise<void> {
    const doc = await this.deps.store.get(SETTINGS_COLLECTION, CATALOG_DOC_ID);
    if (!doc || doc.version === this.applied) return;
    const parsed = catalogSettingsSchema.safeParse(doc.data);
    if (!parsed.success) {
      this.deps.logger.error({ version: doc.version }, 'stored catalog settings are invalid; keeping the current ones');
      return;
    }
    this.apply(doc.version, parsed.data);
  }

  private apply(version: number, settings: CatalogSettings): void {
    if (version < this.applied) return; // a refresh that read an older version finished last
    this.applied = version;
    this.deps.catalog.configure(settings);
  }
}
