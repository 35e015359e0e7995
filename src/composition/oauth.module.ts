/**
 * OAuth for MCP: the service as the authorization server of its MCP endpoint. Built in two
 * steps, as identity tokens are: the access-token authenticator before the accounts module
 * (its credential resolver accepts the tokens on MCP), the module after it (consent checks the
 * operator's agents and authenticator code).
 */
import { ClientMetadataHttpAdapter } from '../../adapters/oauth/client-metadata-http.adapter.js';
import { chosenAgentId } from '../../machines/agent-id.js';
import type { AgentContext } from '../../machines/agent.machine.js';
import { oauthGrantDefinition } from '../../machines/oauth-grant.machine.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import type { ActorCollection, ActorView } from '../../kernel/ports/actor-collection.port.js';
import type { AgentsService } from '../accounts/agents.service.js';
import { OAUTH_CLIENT_COLLECTIONS, OAuthClients } from '../auth/oauth/oauth-clients.js';
import { OAuthGrants, type OAuthAgent, type OAuthAgents } from '../auth/oauth/oauth-grants.service.js';
import { OAuthTokenAuthenticator } from '../auth/oauth/oauth-token-authenticator.js';
import { OAuthTokens } from '../auth/oauth/oauth-tokens.service.js';
import type { TotpService } from '../auth/totp/totp.service.js';
import { OAUTH_BINDINGS } from '../http/routes/oauth.bindings.js';
import { createOAuthRoutes, type OAuthRoutesDeps } from '../http/routes/oauth.routes.js';
import { oauthDueOperations, oauthOperations } from '../operations/definitions/oauth.ops.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';

/** A metadata document is a few hundred bytes, fetched while a person waits on the authorization page. */
const CLIENT_METADATA_FETCH = { timeoutMs: 5_000, maxBytes: 64 * 1024 };

const boxOf = (ctx: ModuleContext) => new SecretBox(ctx.secrets.DATA_ENCRYPTION_KEY, 'oauth-token');

/** Step one, before the accounts module: the access-token authenticator its credential resolver consults. */
export function oauthTokenAuthenticator(ctx: ModuleContext): OAuthTokenAuthenticator {
  return new OAuthTokenAuthenticator({
    grants: ctx.runtime.collection(oauthGrantDefinition),
    box: boxOf(ctx),
    clock: ctx.clock,
    bus: ctx.bus,
    onTouchFailed: (error) => ctx.logger.warn({ err: error }, 'oauth grant last use not recorded'),
  });
}

export interface OAuthAccounts {
  agents: Pick<AgentsService, 'ownedView'>;
  agentActors: Pick<ActorCollection<AgentContext>, 'find'>;
  totp: Pick<TotpService, 'verify'>;
  publicLimit: OAuthRoutesDeps['publicLimit'];
}

/** Step two: the authorization server, its routes and operations, over the account services. */
export function oauthModule(ctx: ModuleContext, authenticator: OAuthTokenAuthenticator, accounts: OAuthAccounts): FeatureModule {
  const issuer = ctx.config.publicUrl.replace(/\/+$/, '');
  const grantActors = ctx.runtime.collection(oauthGrantDefinition);
  const box = boxOf(ctx);
  const allowLoopback = ctx.config.oauthLoopbackClientIds;
  const fetcher = new ClientMetadataHttpAdapter({ ...CLIENT_METADATA_FETCH, allowLoopback });
  const clients = new OAuthClients(ctx.store, fetcher, ctx.clock, { allowLoopbackClientIds: allowLoopback });
  const agents = oauthAgents(accounts);
  const grants = new OAuthGrants({
    grants: grantActors,
    clients,
    agents,
    totp: accounts.totp,
    scheduler: ctx.scheduler,
    box,
    clock: ctx.clock,
    issuer,
  });
  const tokens = new OAuthTokens({
    grants: grantActors,
    authorization: grants,
    box,
    clock: ctx.clock,
    evict: (id) => authenticator.evict(id),
  });
  return {
    name: 'oauth',
    definitions: [oauthGrantDefinition],
    collections: OAUTH_CLIENT_COLLECTIONS,
    operations: [...oauthOperations(grants), ...oauthDueOperations(grantActors)],
    bindings: OAUTH_BINDINGS,
    routers: [createOAuthRoutes({ issuer, grants, tokens, clients, agents, publicLimit: accounts.publicLimit })],
    dueJobs: [
      {
        type: oauthGrantDefinition.type,
        event: 'grant.expire',
        operation: 'oauth_grant_expire',
        input: (job) => ({ grantId: job.address.id, at: job.event.at }),
      },
    ],
    /** The token cache listens for revocations, expiries and rotations on the bus. */
    start: () => authenticator.start(),
  };
}

function oauthAgents(accounts: OAuthAccounts): OAuthAgents {
  const of = (view: ActorView<AgentContext>): OAuthAgent => ({
    actorId: view.id,
    agentId: chosenAgentId(view.id),
    publicId: view.context.publicId,
    name: view.context.name,
  });
  return {
    byPublicId: async (publicId) => {
      const { items } = await accounts.agentActors.find({ index: 'publicId', eq: publicId }, { limit: 1 });
      const view = items[0];
      return view && (view.state === 'active' || view.state === 'paused') ? of(view) : null;
    },
    owned: async (userId, agentId) => of(await accounts.agents.ownedView(userId, agentId)),
  };
}
