import { AUDIT_COLLECTIONS } from '../operations/audit-log.js';
import { auditLogOperations } from '../operations/definitions/audit-log.ops.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

/**
 * The audit trail's records and the operation that reads them (an agent's or bot's log; its
 * REST routes are account bindings). The trail itself is the root's: the invoker writes it,
 * and it is flushed after the runtime drained, when no call is left to record.
 */
export function auditModule(ctx: ModuleContext): FeatureModule {
  return {
    name: 'audit',
    definitions: [],
    collections: AUDIT_COLLECTIONS,
    operations: auditLogOperations(ctx.audit),
    bindings: [],
    routers: [],
    dueJobs: [],
  };
}
