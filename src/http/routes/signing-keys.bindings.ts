import type { RestBinding } from './operation.routes.js';

/** Signing keys of identity tokens, under the ops prefix whose router answers strangers first. */
const SIGNING_KEYS_PATH = '/api/nest/ops/identity/signing-keys';
export const SIGNING_KEYS_BINDINGS: RestBinding[] = [
  { method: 'get', path: SIGNING_KEYS_PATH, operation: 'ops_signing_keys_get', subject: 'none', caller: 'ops', tag: 'Ops' },
  { method: 'post', path: `${SIGNING_KEYS_PATH}/rotate`, operation: 'ops_signing_keys_rotate', subject: 'none', caller: 'ops', tag: 'Ops' },
];
