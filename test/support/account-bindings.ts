import { AGENT_ADMIN_BINDINGS } from '../../src/http/routes/agent-admin.bindings.js';
import { AGENT_BINDINGS } from '../../src/http/routes/agent.bindings.js';
import { AUDIT_LOG_BINDINGS } from '../../src/http/routes/audit-log.bindings.js';
import { BOT_BINDINGS } from '../../src/http/routes/bot.bindings.js';
import { KEY_BINDINGS } from '../../src/http/routes/key.bindings.js';
import type { RestBinding } from '../../src/http/routes/operation.routes.js';
import { STEP_UP_BINDINGS } from '../../src/http/routes/step-up.bindings.js';

/** The REST bindings the accounts module mounts, in its order: agent state, keys, agents, step-up, audit log, legacy bots. */
export const ACCOUNT_BINDINGS: readonly RestBinding[] = [
  ...AGENT_BINDINGS,
  ...KEY_BINDINGS,
  ...AGENT_ADMIN_BINDINGS,
  ...STEP_UP_BINDINGS,
  ...AUDIT_LOG_BINDINGS,
  ...BOT_BINDINGS,
];
