import { createPublicClient, http } from 'viem';
import { AgentsService } from '../accounts/agents.service.js';
import { ApiKeysService } from '../accounts/api-keys.service.js';
import { BotsService } from '../accounts/bots.service.js';
import { CAP_LOCKS_COLLECTION, OwnerCaps } from '../accounts/owner-caps.js';
import { USER_COLLECTIONS, UsersService } from '../accounts/users.service.js';
import {
  CredentialResolver,
  type IdentityTokenAuthenticator,
  type OAuthTokenAuthenticatorLike,
} from '../auth/credentials/credential-resolver.js';
import { KeyAuthenticator } from '../auth/credentials/key-authenticator.js';
import { ScopeCaps } from '../auth/credentials/scope-caps.js';
import { AgentControlService } from '../accounts/agent-control.service.js';
import { AGENT_CONTROL_BINDINGS } from '../http/routes/agent-control.bindings.js';
import { agentControlOperations } from '../operations/definitions/agent-control.ops.js';
import { CsrfTokens } from '../auth/csrf/csrf-tokens.js';
import { SessionService } from '../auth/session/session.service.js';
import { SessionTokens } from '../auth/session/session-tokens.js';
import { STEP_UP_COLLECTIONS, StepUpService } from '../auth/step-up/step-up.service.js';
import { TOTP_COLLECTIONS, TotpService } from '../auth/totp/totp.service.js';
import { NONCE_COLLECTIONS, NonceService } from '../auth/wallet/nonce.service.js';
import { WalletLoginService } from '../auth/wallet/wallet-login.service.js';
import { SecretBox } from '../../kernel/crypto/secret-box.js';
import type { AuthMiddlewareDeps } from '../http/auth/auth.middleware.js';
import { createAuthRoutes } from '../http/routes/auth.routes.js';
import { perMinute } from '../../kernel/ports/rate-limiter.port.js';
import { publicRateLimit } from '../http/rate-limit.middleware.js';
import type { CollectionSpec } from '../../kernel/ports/store.port.js';
import { AGENT_ADMIN_BINDINGS } from '../http/routes/agent-admin.bindings.js';
import { AGENT_BINDINGS } from '../http/routes/agent.bindings.js';
import { AUDIT_LOG_BINDINGS } from '../http/routes/audit-log.bindings.js';
import { BOT_BINDINGS } from '../http/routes/bot.bindings.js';
import { KEY_BINDINGS } from '../http/routes/key.bindings.js';
import { STEP_UP_BINDINGS } from '../http/routes/step-up.bindings.js';
import { agentAdminOperations } from '../operations/definitions/agent-admin.ops.js';
import { agentOperations } from '../operations/definitions/agent.ops.js';
import { botOperations } from '../operations/definitions/bot.ops.js';
import { keyDueOperations } from '../operations/definitions/due-job.ops.js';
import { keyOperations } from '../operations/definitions/key.ops.js';
import { stepUpOperations } from '../operations/definitions/step-up.ops.js';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import { apiKeyDefinition } from '../../machines/api-key.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import { sessionDefinition } from '../../machines/session.machine.js';

/** Store collections of the account services (actors declare theirs through the runtime). */
const ACCOUNT_COLLECTIONS: CollectionSpec[] = [
  ...USER_COLLECTIONS,
  ...NONCE_COLLECTIONS,
  ...TOTP_COLLECTIONS,
  ...STEP_UP_COLLECTIONS,
  CAP_LOCKS_COLLECTION,
];

/** The machine types of accounts: agents, their keys, legacy bots, sessions. */
const ACCOUNT_DEFINITIONS: MachineDefinition[] = [agentDefinition, apiKeyDefinition, botDefinition, sessionDefinition];

/**
 * Operators, sessions, agents, bots, keys, TOTP and step-up: their operations (agents, bots,
 * keys, step-up), key expiry as a due job, and the sign-in routes (the one mutating REST
 * surface outside the catalog). `services` are what other modules and the surfaces use.
 */
export function accountsModule(
  ctx: ModuleContext,
  parts: { identityTokens?: IdentityTokenAuthenticator; oauthTokens?: OAuthTokenAuthenticatorLike } = {},
) {
  const { runtime, store, clock, bus, secrets, config } = ctx;
  const box = (purpose: string) => new SecretBox(secrets.DATA_ENCRYPTION_KEY, purpose);
  const domain = new URL(config.publicUrl).host;
  const apiKeys = runtime.collection(apiKeyDefinition);

  const users = new UsersService(store, clock);
  const sessions = new SessionService(
    runtime.collection(sessionDefinition),
    new SessionTokens(secrets.SESSION_SECRET, config.publicUrl, clock),
    clock,
    bus,
  );
  const totp = new TotpService({ store, clock, box: box('totp-secret'), issuer: domain });
  const stepUp = new StepUpService({ store, clock, box: box('step-up-token'), totp });
  const caps = new OwnerCaps(store, clock);
  // One box for issuing and checking keys: both hash secrets under the `api-key` purpose.
  const keyBox = box('api-key');
  const keys = new ApiKeysService(apiKeys, ctx.scheduler, keyBox, stepUp, clock, caps, config.limits.activeKeysPerAgent);
  const keyAuthenticator = new KeyAuthenticator(apiKeys, runtime.collection(botDefinition), keyBox, clock, bus);
  const scopeCaps = new ScopeCaps(runtime.collection(agentDefinition), clock, bus);
  const resolver = new CredentialResolver(sessions, keyAuthenticator, parts.identityTokens, scopeCaps, parts.oauthTokens);
  const csrf = new CsrfTokens(secrets.SESSION_SECRET);
  const wallet = new WalletLoginService({
    nonces: new NonceService({ store, clock }),
    clock,
    publicUrl: config.publicUrl,
    ...(config.evmRpcUrl ? { evmPublicClient: createPublicClient({ transport: http(config.evmRpcUrl, { timeout: 5_000 }) }) } : {}),
  });
  const agents = new AgentsService(runtime.collection(agentDefinition), users, clock, caps, config.limits.agentsPerUser);
  const control = new AgentControlService({
    agents: runtime.collection(agentDefinition),
    accounts: agents,
    users,
    wallet,
    caps: scopeCaps,
    clock,
  });
  const bots = new BotsService(runtime.collection(botDefinition), clock, keys, caps, config.limits.botsPerUser);
  const auth: AuthMiddlewareDeps = {
    resolver,
    csrf,
    limiter: ctx.limiter,
    publicLimit: publicRateLimit(ctx.limiter, [perMinute(config.publicRatePerMinute)]),
  };

  const module = {
    name: 'accounts',
    definitions: ACCOUNT_DEFINITIONS,
    collections: ACCOUNT_COLLECTIONS,
    operations: [
      ...agentOperations(runtime.collection(agentDefinition)),
      ...agentAdminOperations(agents),
      ...botOperations(bots, keys),
      ...stepUpOperations(stepUp),
      ...keyOperations(keys),
      ...keyDueOperations(apiKeys),
      ...agentControlOperations(control, keys, stepUp),
    ],
    bindings: [
      ...AGENT_BINDINGS,
      ...KEY_BINDINGS,
      ...AGENT_ADMIN_BINDINGS,
      ...STEP_UP_BINDINGS,
      ...AUDIT_LOG_BINDINGS,
      ...BOT_BINDINGS,
      ...AGENT_CONTROL_BINDINGS,
    ],
    // Sign-in only: every other account capability is a catalog operation.
    routers: [
      createAuthRoutes({
        auth,
        resolver,
        csrf,
        wallet,
        users,
        sessions,
        totp,
        cookies: { secure: new URL(config.publicUrl).protocol === 'https:' },
      }),
    ],
    dueJobs: [
      {
        type: apiKeys.type,
        event: 'key.expire',
        operation: 'key_expire',
        input: (job) => ({ keyId: job.address.id, at: job.event.at, dueAt: job.dueAt }),
      },
    ],
    /** Subscribes the credential caches to revocations on the bus (closed with the bus). */
    start: async () => {
      await sessions.start();
      await keyAuthenticator.start();
      await scopeCaps.start();
    },
  } satisfies FeatureModule;
  return { ...module, auth, services: { users, sessions, keys, keyAuthenticator, resolver, agents, bots, totp, stepUp, wallet, control } };
}

/** What the rest of the service uses of accounts. */
export type AccountsModule = ReturnType<typeof accountsModule>;
