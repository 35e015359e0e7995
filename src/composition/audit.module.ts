import { AUDIT_COLLECTIONS } from '../operations/audit-log.js';
import { AuditVerifier } from '../operations/audit-verify.service.js';
import { auditLogOperations } from '../operations/definitions/audit-log.ops.js';
import { auditVerifyOperations } from '../operations/definitions/audit-verify.ops.js';
import type { RestBinding } from '../http/routes/operation.routes.js';
import { KeyRingSigner, type SignerKeys } from '../identity/keys/checkpoint-signer.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

const AUDIT_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/ops/audit/verify', operation: 'ops_audit_verify', subject: 'none', caller: 'ops', tag: 'Ops' },
];

/**
 * The audit trail's records, the operation that reads them (an agent's or bot's log; its
 * REST routes are account bindings) and the ops verify of its hash chains. The trail itself
 * is the root's: the invoker writes it, and it is flushed after the runtime drained, when no
 * call is left to record. Chain heads are signed with the identity key ring's active key,
 * held by the signer until the ring rotates.
 */
export function auditModule(ctx: ModuleContext, keys: Required<SignerKeys>): FeatureModule {
  const signer = new KeyRingSigner(keys, () => ctx.clock.now());
  const verifier = new AuditVerifier(ctx.audit, signer, ctx.clock);
  return {
    name: 'audit',
    definitions: [],
    collections: AUDIT_COLLECTIONS,
    operations: [...auditLogOperations(ctx.audit), ...auditVerifyOperations(verifier)],
    bindings: AUDIT_BINDINGS,
    routers: [],
    dueJobs: [],
    start: async () => ctx.audit.startCheckpoints(signer),
    // The heads written until the last flush are signed by whichever process sweeps next; this one signs its own now.
    stop: async () => {
      await ctx.audit.stopCheckpoints();
      await ctx.audit.flush();
      await ctx.audit.signPending();
    },
  };
}
