import { listInput, type RestBinding } from './operation.routes.js';

const BOTS = 'Legacy bots';
const OPS = 'Ops';

/**
 * Operators' agents, their audit logs and step-up, and the legacy bot routes (interface
 * 4.4, 4.7): catalog operations like every other capability. Legacy routes keep their
 * `Deprecation` and `Link` headers; a bot's keys are the key operations acting on the bot.
 */
export const ACCOUNT_REST_BINDINGS: RestBinding[] = [
  { method: 'post', path: '/api/nest/agents', operation: 'agent_create', subject: 'none', status: 201 },
  { method: 'get', path: '/api/nest/agents', operation: 'agent_list', subject: 'none', input: listInput },
  { method: 'get', path: '/api/nest/agents/:agentId', operation: 'agent_get', inputFirst: true },
  // Takes no fields; a body it is sent was never read, and still is not.
  { method: 'put', path: '/api/nest/agents/:agentId/default', operation: 'agent_default_set', input: () => ({}) },
  { method: 'post', path: '/api/nest/agents/:agentId/control/mcp/step-up', operation: 'step_up_issue' },
  { method: 'get', path: '/api/nest/agents/:agentId/logs', operation: 'audit_log_list', input: listInput, inputFirst: true },

  { method: 'get', path: '/api/nest/bots', operation: 'bot_list', subject: 'none', input: listInput, tag: BOTS, deprecated: true },
  {
    method: 'get',
    path: '/api/nest/bots/list',
    operation: 'bot_list_simplified',
    subject: 'none',
    input: listInput,
    tag: BOTS,
    deprecated: true,
  },
  { method: 'post', path: '/api/nest/bots', operation: 'bot_create', subject: 'none', status: 201, tag: BOTS, deprecated: true },
  { method: 'get', path: '/api/nest/bots/:id', operation: 'bot_get', subject: 'bot', tag: BOTS, deprecated: true, inputFirst: true },
  { method: 'patch', path: '/api/nest/bots/:id', operation: 'bot_update', subject: 'bot', tag: BOTS, deprecated: true, inputFirst: true },
  { method: 'put', path: '/api/nest/bots/:id', operation: 'bot_replace', subject: 'bot', tag: BOTS, deprecated: true, inputFirst: true },
  { method: 'delete', path: '/api/nest/bots/:id', operation: 'bot_delete', subject: 'bot', tag: BOTS, deprecated: true, inputFirst: true },
  {
    method: 'get',
    path: '/api/nest/bots/:botId/mcp',
    operation: 'bot_mcp_config_get',
    subject: 'bot',
    input: listInput,
    tag: BOTS,
    deprecated: true,
    inputFirst: true,
  },
  {
    method: 'put',
    path: '/api/nest/bots/:botId/mcp',
    operation: 'bot_mcp_config_set',
    subject: 'bot',
    tag: BOTS,
    deprecated: true,
    inputFirst: true,
  },
  {
    method: 'get',
    path: '/api/nest/bots/:botId/mcp/logs',
    operation: 'audit_log_list',
    subject: 'bot',
    input: listInput,
    tag: BOTS,
    deprecated: true,
    inputFirst: true,
  },
  {
    method: 'post',
    path: '/api/nest/bots/:botId/mcp/keys',
    operation: 'agent_keys_create',
    subject: 'bot',
    status: 201,
    tag: BOTS,
    deprecated: true,
  },
  {
    method: 'delete',
    path: '/api/nest/bots/:botId/mcp/keys/:keyId',
    operation: 'agent_keys_revoke',
    subject: 'bot',
    tag: BOTS,
    deprecated: true,
  },
  { method: 'post', path: '/api/nest/bots/:botId/mcp/step-up', operation: 'step_up_issue', subject: 'bot', tag: BOTS, deprecated: true },
  {
    method: 'post',
    path: '/api/nest/bots/:botId/mcp/token',
    operation: 'bot_token_rotate',
    subject: 'bot',
    status: 201,
    tag: BOTS,
    deprecated: true,
  },
];

/** The trading kill switch (ops token), under the ops prefix whose router answers strangers first. */
export const KILL_SWITCH_PATH = '/api/nest/ops/trading/kill-switch';
export const KILL_SWITCH_BINDINGS: RestBinding[] = [
  { method: 'get', path: KILL_SWITCH_PATH, operation: 'ops_kill_switch_get', subject: 'none', caller: 'ops', tag: OPS },
  { method: 'put', path: KILL_SWITCH_PATH, operation: 'ops_kill_switch_set', subject: 'none', caller: 'ops', tag: OPS },
];

/** Runtime settings of the catalog (ops token). */
export const CATALOG_ADMIN_BINDINGS: RestBinding[] = [
  { method: 'get', path: '/api/nest/ops/catalog', operation: 'ops_catalog_get', subject: 'none', caller: 'ops', tag: OPS },
  { method: 'put', path: '/api/nest/ops/catalog', operation: 'ops_catalog_set', subject: 'none', caller: 'ops', tag: OPS },
];
