import type { RestBinding } from './operation.routes.js';

/** Runtime settings of the catalog (ops token). */
export const CATALOG_SETTINGS_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/ops/catalog', operation: 'ops_catalog_get', subject: 'none', caller: 'ops', tag: 'Ops' },
  { method: 'put', path: '/api/nest/ops/catalog', operation: 'ops_catalog_set', subject: 'none', caller: 'ops', tag: 'Ops' },
];
