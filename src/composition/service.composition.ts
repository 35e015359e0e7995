import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { Router } from 'express';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';
import type { AppConfig } from '../config/config.schema.js';
import type { Secrets } from '../config/secrets.js';
import { SIGN_IN_PREFIX, signInRecordMiddleware } from '../http/auth/sign-in-record.middleware.js';
import { createHttpApp } from '../http/app.js';
import { createConsoleRoutes } from '../http/console.routes.js';
import { createHttpServer } from '../http/http-server.js';
import { startMetricsServer } from '../http/metrics-server.js';
import { createOpenApiRoutes } from '../http/openapi/openapi.routes.js';
import { assertBindingsResolve, createOperationRoutes, type RestBinding } from '../http/routes/operation.routes.js';
import { setSecurityHeaders } from '../surface-common/security-headers.js';
import { createMcpEventSurfaces } from '../mcp/events/event-surfaces.js';
import { McpAccessResolver } from '../mcp/mcp-access.js';
import { createMcpDiscoveryRoutes } from '../mcp/mcp-discovery.routes.js';
import { createMcpHttpHandler, MCP_TARGET_CACHE_MS } from '../mcp/mcp-http.handler.js';
import { originPolicy } from '../mcp/mcp-origin.js';
import { resourceMetadataUrlOf } from '../mcp/mcp-challenge.js';
import { instrumentStore } from '../observability/instrumented-store.js';
import { Metrics } from '../observability/metrics.js';
import { accountAccess } from '../operations/account-access.js';
import { AuditLog } from '../operations/audit-log.js';
import { OperationCatalog } from '../operations/operation-catalog.js';
import { OperationInvoker } from '../operations/operation-invoker.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { StorePort } from '../../kernel/ports/store.port.js';
import { DurablePublisher } from '../runtime/durable-publisher.js';
import { ActorRuntime } from '../runtime/actor-runtime.js';
import { RuntimeInspector } from '../runtime/runtime-inspector.js';
import { ensurePrivateDir } from '../../kernel/shared/private-files.js';
import { accountsModule, type AccountsModule } from './accounts.module.js';
import { buildAdapters, type Adapters } from './adapters.composition.js';
import { auditModule } from './audit.module.js';
import { botSurfaceModule } from './bot-surface.module.js';
import { catalogSettingsModule } from './catalog-settings.module.js';
import { chatModule } from './chat.module.js';
import { lockDataDir, locksDataDir, type DataDirLock } from './data-dir-lock.js';
import { directoryModule } from './directory.module.js';
import { DueJobs } from './due-jobs.js';
import type { FeatureModule, ModuleContext } from './feature-module.types.js';
import { idempotencyModule } from './idempotency.module.js';
import { identityModule, identityTokens } from './identity.module.js';
import { oauthModule, oauthTokenAuthenticator } from './oauth.module.js';
import { startModules } from './module-starter.js';
import { tradingModule } from './trading.module.js';
import { widgetModule } from './widget.module.js';
import { withdrawalsModule } from './withdrawals.module.js';

export interface ServiceOptions {
  config: AppConfig;
  secrets: Secrets;
  logger: Logger;
  clock?: ClockPort;
  /** Extra machine types (tests and benchmarks register their own). */
  definitions?: MachineDefinition[];
  /**
   * Wraps the store the profile built before anything uses it: the chaos run stalls every
   * store call of a process for a while through it, a fault no real adapter can be asked for.
   */
  decorateStore?: (store: StorePort) => StorePort;
}

export interface RunningService {
  runtime: ActorRuntime;
  adapters: Adapters;
  server: Server;
  /** `http://host:port` the server listens on. */
  url: string;
  /** `http://host:port` of `/metrics` when it has its own port (config `METRICS_PORT`). */
  metricsUrl?: string;
  services: AccountsModule['services'];
  /** The catalog, the invoker every surface calls, the audit trail it writes, and the REST bindings of every module. */
  operations: { catalog: OperationCatalog; invoker: OperationInvoker; audit: AuditLog; bindings: readonly RestBinding[] };
  /** The feature modules, in start order. */
  modules: readonly FeatureModule[];
  /** Where the scheduler hands due jobs (`deliver`), each to its `system` operation. */
  dueJobs: DueJobs;
  /** Graceful stop: no new requests, drained mailboxes, closed adapters. Idempotent. */
  stop(): Promise<void>;
}

/** The operator console's build (`npm start` and the tests build it, as `npm run build:console` does). */
const CONSOLE_DIR = fileURLToPath(new URL('../../console/dist', import.meta.url));

/**
 * Builds everything for the configured profile and starts listening. Without REDIS_URL the
 * process first takes its data directory (data-dir-lock.ts): a second one there is refused.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config } = options;
  if (!locksDataDir(config)) return startWith(options, undefined);
  ensurePrivateDir(config.dataDir);
  const lock = await lockDataDir(config.dataDir);
  try {
    return await startWith(options, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/**
 * The order of things. Build: adapters, publisher, runtime, the catalog and its
 * audit trail, then the feature modules (list below), whose machine types, operations, due-job
 * routes and recovery are registered with the runtime and the catalog; then the surfaces
 * (REST, MCP, SSE) over the catalog. Start: the store's collections, the runtime (actor
 * collections, then each module's recovery), the modules in list order, the scheduler (due
 * jobs now flow), the server (requests now flow). Stop, the reverse: the server and event
 * streams, the scheduler (running due jobs finish), the modules in reverse order, the runtime
 * drains its mailboxes, the audit trail is flushed, the adapters close.
 */
async function startWith(options: ServiceOptions, lock: DataDirLock | undefined): Promise<RunningService> {
  const { config, logger } = options;
  const clock = options.clock ?? new SystemClock();
  const metrics = new Metrics();
  const built = await buildAdapters(config, clock, logger);
  const store = options.decorateStore ? options.decorateStore(built.store) : built.store;
  const adapters: Adapters = { ...built, store: instrumentStore(store, metrics) };
  // One queue per stream for every event of the service, published once durable (actors' and trading services').
  // Order transitions and risk refusals are counted from their events as they become durable.
  const publisher = new DurablePublisher({
    store: adapters.store,
    bus: adapters.bus,
    logger,
    onDurable: (event) => metrics.trading.observeEvent(event),
  });
  const runtime = new ActorRuntime({ ...adapters, publisher, clock, logger, ...config.runtime });
  metrics.setActorStatsSource(() => runtime.stats());
  const catalog = new OperationCatalog();
  const audit = new AuditLog(adapters.store, clock, logger);
  const ctx: ModuleContext = { ...adapters, config, secrets: options.secrets, logger, clock, metrics, runtime, publisher, catalog, audit };

  // The feature modules, in start order (stopped in reverse). A new feature: its module file and one line here.
  const idempotency = idempotencyModule(ctx);
  // The one invoker every surface and due job calls; it reads the catalog at call time (filled below).
  const invoker = new OperationInvoker(catalog, audit, clock, {
    idempotency: idempotency.guard,
    settled: () => runtime.settled(),
    fingerprintHash: idempotency.fingerprintHash,
  });
  // The credential resolver (accounts) accepts identity tokens; the identity module's onboarding makes accounts' users and agents.
  const tokens = identityTokens(ctx);
  // OAuth access tokens likewise, on the MCP endpoint of the agent they are bound to.
  const oauthTokens = oauthTokenAuthenticator(ctx);
  const accounts = accountsModule(ctx, { identityTokens: tokens.tokens, oauthTokens });
  const trading = tradingModule(ctx);
  // Onboarding (identity) writes the cards' drafts.
  const directory = directoryModule(ctx, {
    publicLimit: accounts.auth.publicLimit,
    status: trading.status,
    venue: trading.withdrawalParts.venue,
  });
  const chat = chatModule(ctx, { status: trading.status });
  const botSurface = botSurfaceModule(ctx, { askBot: chat.askBot, command: trading.command, status: trading.status });
  const modules: FeatureModule[] = [
    auditModule(ctx, tokens.keys),
    idempotency,
    accounts,
    identityModule(ctx, tokens, {
      wallet: accounts.services.wallet,
      users: accounts.services.users,
      agents: accounts.services.agents,
      publicLimit: accounts.auth.publicLimit,
      cards: directory.cards,
    }),
    oauthModule(ctx, oauthTokens, {
      agents: accounts.services.agents,
      agentActors: runtime.collection(agentDefinition),
      totp: accounts.services.totp,
      publicLimit: accounts.auth.publicLimit,
    }),
    catalogSettingsModule(ctx),
    trading,
    withdrawalsModule(ctx, { ...trading.withdrawalParts, stepUp: accounts.services.stepUp, claims: accounts.services.control }),
    chat,
    botSurface,
    widgetModule(ctx, { chat: botSurface.chat, wallet: accounts.services.wallet, publicLimit: accounts.auth.publicLimit, invoker }),
    directory,
  ];

  for (const definition of [...modules.flatMap((module) => module.definitions), ...(options.definitions ?? [])])
    runtime.register(definition);
  catalog.register(...modules.flatMap((module) => module.operations));
  for (const module of modules) if (module.recover) runtime.onRecover(module.name, module.recover.bind(module));
  const dueJobs = new DueJobs(
    modules.flatMap((module) => module.dueJobs),
    invoker,
    logger,
  );
  dueJobs.check(catalog);
  const bindings = modules.flatMap((module) => module.bindings);
  assertBindingsResolve(catalog, bindings);

  // One resolver for tools and events: publicId lookups cached briefly, credentials never.
  const mcpAccess = new McpAccessResolver(
    { agents: runtime.collection(agentDefinition), bots: runtime.collection(botDefinition) },
    accounts.services.resolver,
    config.mcpGranularErrors,
    {
      ttlMs: MCP_TARGET_CACHE_MS,
      clock,
    },
  );
  const mcpOrigins = originPolicy(config.publicUrl, config.mcpAllowedOrigins);
  // A 401 names the agent's OAuth protected resource metadata: how an MCP client finds where to sign in.
  const resourceMetadataUrl = resourceMetadataUrlOf(config.publicUrl);
  const mcpEvents = createMcpEventSurfaces({
    access: mcpAccess,
    limiter: adapters.limiter,
    bus: adapters.bus,
    clock,
    logger,
    registry: metrics.registry,
    maxStreamsPerCredential: config.eventStreamsPerCredential,
    originAllowed: mcpOrigins,
    resourceMetadataUrl,
  });

  // Sign-in and its kin (ERC-8004 onboarding, the widget's session gate) stay outside the catalog: a caller
  // with no credential yet. Sign-in's durability and audit:
  const signInRecord = Router().use(SIGN_IN_PREFIX, signInRecordMiddleware({ audit, clock, settled: () => runtime.settled(), logger }));
  const operationRoutes = createOperationRoutes({
    auth: accounts.auth,
    invoker,
    accounts: accountAccess(accounts.services.agents, accounts.services.bots),
    bindings,
    opsToken: options.secrets.OPS_TOKEN,
  });
  let ready = false;
  const app = createHttpApp({
    routers: [
      signInRecord,
      ...modules.flatMap((module) => module.routers),
      operationRoutes,
      createOpenApiRoutes({ catalog, bindings, publicLimit: accounts.auth.publicLimit }),
      mcpEvents.router,
      createMcpDiscoveryRoutes({ publicUrl: config.publicUrl, publicLimit: accounts.auth.publicLimit }),
      // The operator console last: it answers only its own pages and assets.
      createConsoleRoutes({ dir: CONSOLE_DIR, profile: config.profile }),
    ],
    logger,
    metrics,
    opsToken: options.secrets.OPS_TOKEN,
    metricsOnMainPort: config.metricsPort === undefined,
    inspector: new RuntimeInspector(runtime, adapters.store),
    readiness: () => readiness(adapters, () => ready),
    ...(config.trustProxy !== undefined ? { trustProxy: config.trustProxy } : {}),
  });
  // The MCP endpoint is served before express, on the same server (measured: express costs ~150 µs a request).
  const mcp = createMcpHttpHandler({
    access: mcpAccess,
    invoker,
    catalog,
    limiter: adapters.limiter,
    logger,
    clock,
    metrics,
    originAllowed: mcpOrigins,
    resourceMetadataUrl,
  });
  const server = createHttpServer(
    config.http,
    (req, res) => {
      // The MCP handler writes the security headers with its others (one writeHead per answer).
      if (mcp(req, res)) return;
      setSecurityHeaders(res);
      app(req, res);
    },
    { isTrustedProxy: uncountedPeer(config.trustProxy, app.get('trust proxy fn') as (address: string, hop: number) => boolean) },
  );
  mcpEvents.attach(server);

  await adapters.store.init(modules.flatMap((module) => module.collections));
  // The actors' collections, then each module's recovery, before anything is taken.
  await runtime.start();
  const stopModules = await startModules(modules, logger);
  let metricsServer: Server | undefined;
  try {
    await adapters.scheduler.start(dueJobs.deliver);
    if (config.metricsPort !== undefined)
      metricsServer = await startMetricsServer({ host: config.host, port: config.metricsPort, metrics, logger });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    metricsServer?.close();
    await stopModules().catch(() => undefined); // each failure is logged by the starter
    throw error;
  }
  ready = true;
  const url = urlOf(server);
  const metricsUrl = metricsServer && urlOf(metricsServer);
  logger.info({ url, profile: config.profile, ...(metricsUrl ? { metricsUrl } : {}) }, 'service listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      ready = false;
      // Long-lived event streams would otherwise hold server.close() open.
      await mcpEvents.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      metricsServer?.close();
      metricsServer?.closeAllConnections();
      // Due jobs send events: stop taking them (and let running ones finish) before the runtime drains.
      await adapters.scheduler.close();
      // Their timers and subscriptions, in reverse start order; a failing one does not stop the rest (logged by the starter).
      await stopModules().catch(() => undefined);
      await runtime.shutdown(config.shutdownTimeoutMs);
      // Calls that ran while the runtime drained are recorded too.
      await audit.flush();
      await adapters.bus.close();
      await adapters.limiter.close();
      await adapters.store.close();
      server.closeAllConnections();
      await closed;
      await lock?.release();
      logger.info('service stopped');
    })());

  return {
    runtime,
    adapters,
    server,
    url,
    ...(metricsUrl ? { metricsUrl } : {}),
    stop,
    services: accounts.services,
    operations: { catalog, invoker, audit, bindings },
    modules,
    dueJobs,
  };
}

function urlOf(server: Server): string {
  const address = server.address() as AddressInfo;
  return `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
}

async function readiness(adapters: Adapters, isReady: () => boolean) {
  const checks: Record<string, string> = {};
  await Promise.all(
    (['store', 'scheduler', 'bus', 'limiter'] as const).map(async (name) => {
      try {
        await adapters[name].ping();
        checks[name] = 'ok';
      } catch (error) {
        checks[name] = error instanceof Error ? error.message : 'unavailable';
      }
    }),
  );
  checks.runtime = isReady() ? 'ok' : 'starting';
  return { ready: Object.values(checks).every((value) => value === 'ok'), checks };
}

/**
 * Which peers the per-address connection cap does not count: a proxy named by address, CIDR or
 * preset in `TRUST_PROXY` carries many clients. A hop count names no address (express trusts
 * every peer for it), so then every peer is counted: a hop count must not switch the cap off
 * for everyone. A proxy to exempt is named by its address.
 */
function uncountedPeer(trustProxy: number | string[] | undefined, trusts: (address: string, hop: number) => boolean) {
  if (trustProxy === undefined || typeof trustProxy === 'number') return () => false;
  return (address: string) => trusts(address, 0);
}
