import type { Request } from 'express';
import type { RestBinding } from './operation.routes.js';

/** OAuth for MCP in the console: the consent page's request and answer, and an agent's grants beside its keys. */
export const OAUTH_BINDINGS: RestBinding[] = [
  {
    method: 'get',
    path: '/api/nest/oauth/authorizations/:authorizationId',
    operation: 'oauth_authorization_get',
    subject: 'none',
    tag: 'OAuth',
    input: (req: Request) => ({ ...req.query, authorizationId: req.params.authorizationId }),
  },
  { method: 'post', path: '/api/nest/oauth/consent', operation: 'oauth_consent', subject: 'none', tag: 'OAuth' },
  { method: 'get', path: '/api/nest/agents/:agentId/oauth-grants', operation: 'agent_oauth_grants_list' },
  { method: 'delete', path: '/api/nest/agents/:agentId/oauth-grants/:grantId', operation: 'agent_oauth_grants_revoke' },
];
