import type { RestBinding } from './operation.routes.js';

/** The trading kill switch (ops token), under the ops prefix whose router answers strangers first. */
export const KILL_SWITCH_PATH = '/api/nest/ops/trading/kill-switch';
export const KILL_SWITCH_BINDINGS: RestBinding[] = [
  { method: 'get', path: KILL_SWITCH_PATH, operation: 'ops_kill_switch_get', subject: 'none', caller: 'ops', tag: 'Ops' },
  { method: 'put', path: KILL_SWITCH_PATH, operation: 'ops_kill_switch_set', subject: 'none', caller: 'ops', tag: 'Ops' },
];
