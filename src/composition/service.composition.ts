import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { SystemClock } from '../../adapters/clock/system-clock.adapter.js';
import { agentDefinition } from '../../machines/agent.machine.js';
import { apiKeyDefinition } from '../../machines/api-key.machine.js';
import { identityTokenDefinition } from '../../machines/identity-token.machine.js';
import { botDefinition } from '../../machines/bot.machine.js';
import { sessionDefinition } from '../../machines/session.machine.js';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';
import type { AppConfig } from '../config/config.schema.js';
import type { Secrets } from '../config/secrets.js';
import { isAppError } from '../errors/app-error.js';
import { Router } from 'express';
import { SIGN_IN_PREFIX, signInRecordMiddleware } from '../http/auth/sign-in-record.middleware.js';
import { createHttpApp } from '../http/app.js';
import { createHttpServer } from '../http/http-server.js';
import { setSecurityHeaders } from '../surface-common/security-headers.js';
import { createMcpEventSurfaces } from '../mcp/events/event-surfaces.js';
import { McpAccessResolver } from '../mcp/mcp-access.js';
import { createMcpDiscoveryRoutes } from '../mcp/mcp-discovery.routes.js';
import { createErc8004DiscoveryRoutes } from '../mcp/erc8004-discovery.routes.js';
import { createMcpHttpHandler, MCP_TARGET_CACHE_MS } from '../mcp/mcp-http.handler.js';
import { instrumentStore } from '../observability/instrumented-store.js';
import { Metrics } from '../observability/metrics.js';
import type { ClockPort } from '../ports/clock.port.js';
import type { DueJob, DueJobHandler } from '../ports/scheduler.port.js';
import { DurablePublisher } from '../runtime/durable-publisher.js';
import { ActorRuntime } from '../runtime/actor-runtime.js';
import { RuntimeInspector } from '../runtime/runtime-inspector.js';
import { TRADING_RECORD_COLLECTIONS } from '../../agents/portfolio/portfolio.records.js';
import { AUDIT_COLLECTIONS } from '../operations/audit-log.js';
import { CATALOG_SETTINGS_COLLECTIONS } from '../operations/catalog-settings.store.js';
import { IDEMPOTENCY_COLLECTION } from '../operations/idempotency-guard.js';
import { ACCOUNT_COLLECTIONS, buildAccounts } from './accounts.composition.js';
import { buildOperations, idempotencyFingerprints } from './operations.composition.js';
import { buildAdapters, type Adapters } from './adapters.composition.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import { ensurePrivateDir } from '../shared/private-files.js';
import { buildTrading, type TradingModule } from './trading.composition.js';
import { buildIdentityRoutes, buildIdentityTokens } from './identity.composition.js';

export interface ServiceOptions {
  config: AppConfig;
  secrets: Secrets;
  logger: Logger;
  clock?: ClockPort;
  /** Extra machine types (tests and benchmarks register their own). */
  definitions?: MachineDefinition[];
}

export interface RunningService {
  runtime: ActorRuntime;
  adapters: Adapters;
  server: Server;
  /** `http://host:port` the server listens on. */
  url: string;
  services: ReturnType<typeof buildAccounts>['services'];
  operations: ReturnType<typeof buildOperations>;
  trading: TradingModule;
  /** Graceful stop: no new requests, drained mailboxes, closed adapters. Idempotent. */
  stop(): Promise<void>;
}

/** The machine types of the service. */
export const SERVICE_DEFINITIONS: MachineDefinition[] = [agentDefinition, apiKeyDefinition, botDefinition, sessionDefinition, identityTokenDefinition];

/**
 * Builds everything for the configured profile and starts listening. Without REDIS_URL the
 * process first takes its data directory (data-dir-lock.ts): a second one there is refused.
 */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { config } = options;
  if (config.redis) return startWith(options, undefined);
  ensurePrivateDir(config.dataDir);
  const lock = await lockDataDir(config.dataDir);
  try {
    return await startWith(options, lock);
  } catch (error) {
    await lock.release();
    throw error;
  }
}

async function startWith(options: ServiceOptions, lock: DataDirLock | undefined): Promise<RunningService> {
  const { config, logger } = options;
  const clock = options.clock ?? new SystemClock();
  const metrics = new Metrics();
  const built = await buildAdapters(config, clock, logger);
  const adapters: Adapters = { ...built, store: instrumentStore(built.store, metrics) };
  // One queue per stream for every event of the service, published once durable (actors' and trading services').
  // Order transitions and risk refusals are counted from their events as they become durable.
  const publisher = new DurablePublisher({ store: adapters.store, bus: adapters.bus, logger, onDurable: (event) => metrics.trading.observeEvent(event) });
  const runtime = new ActorRuntime({ ...adapters, publisher, clock, logger, ...config.runtime });
  for (const definition of [...SERVICE_DEFINITIONS, ...(options.definitions ?? [])]) runtime.register(definition);
  metrics.setActorStatsSource(() => runtime.stats());

  // ERC-8004 identity tokens (identity.composition.ts): the credential resolver accepts them.
  const identity = buildIdentityTokens({ ...adapters, runtime, clock, secrets: options.secrets, publicUrl: config.publicUrl, logger });
  const accounts = buildAccounts({
    identityTokens: identity.tokens,
    ...adapters,
    runtime,
    clock,
    secrets: options.secrets,
    publicUrl: config.publicUrl,
    publicRatePerMinute: config.publicRatePerMinute,
    limits: config.limits,
    ...(config.evmRpcUrl ? { evmRpcUrl: config.evmRpcUrl } : {}),
  });

  const trading = buildTrading({
    ...adapters,
    events: publisher,
    runtime,
    clock,
    logger,
    agents: accounts.services.agents,
    config,
    secrets: options.secrets,
    metrics,
  });
  for (const definition of trading.definitions) runtime.register(definition);

  const operations = buildOperations({
    ...adapters,
    runtime,
    clock,
    logger,
    auth: accounts.auth,
    agents: accounts.services.agents,
    keys: accounts.services.keys,
    bots: accounts.services.bots,
    stepUp: accounts.services.stepUp,
    opsToken: options.secrets.OPS_TOKEN,
    ...(trading.status ? { status: trading.status } : {}),
    extraOperations: [...trading.operations, ...identity.operations],
    extraBindings: [...trading.bindings, ...identity.bindings],
    ...(config.llm ? { llm: config.llm } : {}),
    fingerprintHash: idempotencyFingerprints(options.secrets.DATA_ENCRYPTION_KEY),
  });

  metrics.trading.addBreakerSource(operations.llmBreakers);

  // One resolver for tools and events: publicId lookups cached briefly, credentials never.
  const mcpAccess = new McpAccessResolver({ agents: runtime.collection(agentDefinition), bots: runtime.collection(botDefinition) }, accounts.services.resolver, config.mcpGranularErrors, {
    ttlMs: MCP_TARGET_CACHE_MS,
    clock,
  });
  const mcpEvents = createMcpEventSurfaces({
    access: mcpAccess,
    limiter: adapters.limiter,
    bus: adapters.bus,
    clock,
    logger,
    registry: metrics.registry,
  });

  // Sign-in is the one mutating REST surface outside the catalog: its durability and audit.
  const signInRecord = Router().use(SIGN_IN_PREFIX, signInRecordMiddleware({ audit: operations.audit, clock, settled: () => runtime.settled(), logger }));
  const identityRouters = buildIdentityRoutes({
    module: identity,
    settings: config.identity,
    ...adapters,
    clock,
    wallet: accounts.services.wallet,
    users: accounts.services.users,
    agents: accounts.services.agents,
    publicLimit: accounts.auth.publicLimit,
  });
  identityRouters.push(createErc8004DiscoveryRoutes({ publicUrl: config.publicUrl, publicLimit: accounts.auth.publicLimit, catalog: operations.catalog, ...identity.discovery(config.identity) }));
  let ready = false;
  const app = createHttpApp({
    routers: [signInRecord, ...accounts.routers, ...identityRouters, ...operations.routers, ...(trading.routers ?? []), mcpEvents.router, createMcpDiscoveryRoutes({ publicUrl: config.publicUrl, publicLimit: accounts.auth.publicLimit })],
    logger,
    metrics,
    opsToken: options.secrets.OPS_TOKEN,
    inspector: new RuntimeInspector(runtime, adapters.store),
    readiness: () => readiness(adapters, () => ready),
    ...(config.trustProxy !== undefined ? { trustProxy: config.trustProxy } : {}),
  });
  // The MCP endpoint is served before express, on the same server (STACK.md: express costs ~150 µs a request).
  const mcp = createMcpHttpHandler({
    access: mcpAccess,
    invoker: operations.invoker,
    catalog: operations.catalog,
    limiter: adapters.limiter,
    logger,
    clock,
    metrics,
  });
  const server = createHttpServer(config.http, (req, res) => {
    setSecurityHeaders(res);
    if (!mcp(req, res)) app(req, res);
  });
  mcpEvents.attach(server);

  await adapters.store.init([
    ...ACCOUNT_COLLECTIONS,
    ...AUDIT_COLLECTIONS,
    ...CATALOG_SETTINGS_COLLECTIONS,
    ...TRADING_RECORD_COLLECTIONS,
    IDEMPOTENCY_COLLECTION,
    ...trading.collections,
    ...identity.collections,
  ]);
  await operations.catalogSettings.start();
  await runtime.start();
  await trading.start();
  await accounts.start();
  await identity.start();
  await adapters.scheduler.start((job) => deliverDueJob(runtime, logger, job, trading.dueJobs));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => resolve());
  });
  ready = true;
  const address = server.address() as AddressInfo;
  const url = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  logger.info({ url, profile: config.profile }, 'service listening');

  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      ready = false;
      // Long-lived event streams would otherwise hold server.close() open.
      await mcpEvents.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // Due jobs send events: stop taking them (and let running ones finish) before the runtime drains.
      await trading.stop();
      operations.catalogSettings.stop();
      await adapters.scheduler.close();
      await runtime.shutdown(config.shutdownTimeoutMs);
      await operations.audit.flush();
      await adapters.bus.close();
      await adapters.limiter.close();
      await adapters.store.close();
      server.closeAllConnections();
      await closed;
      await lock?.release();
      logger.info('service stopped');
    })());

  return { runtime, adapters, server, url, stop, services: accounts.services, operations, trading };
}

/**
 * A due job becomes an ordinary event, stamped with the time it was due. The job is done
 * (BullMQ forgets it) only once what it changed is durable: power loss must not undo a
 * transition whose job is gone (a key's expiry is not scheduled again).
 */
async function deliverDueJob(runtime: ActorRuntime, logger: Logger, job: DueJob, handlers: Record<string, DueJobHandler>): Promise<void> {
  try {
    const handler = handlers[job.address.type];
    if (handler) await handler(job);
    else await runtime.send(job.address, { ...job.event, dueAt: job.dueAt });
    await runtime.settled();
  } catch (error) {
    // An actor that no longer exists will never take the event: drop it instead of retrying forever.
    if (isAppError(error) && error.status === 404) {
      logger.warn({ job: job.id, address: job.address }, 'due job for a missing actor dropped');
      return;
    }
    throw error;
  }
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
