import { listInput, type RestBinding } from './operation.routes.js';

const BOTS = 'Legacy bots';

/**
 * The legacy bot routes (the legacy routes): catalog operations like every other capability.
 * Legacy routes keep their `Deprecation` and `Link` headers; a bot's keys, step-up and log
 * are the key, step-up and audit-log operations acting on the bot.
 */
export const BOT_BINDINGS: RestBinding[] = [
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
