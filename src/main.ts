/**
 * Entry point: validate configuration, start the service on the configured profile,
 * stop gracefully on SIGTERM/SIGINT.
 */
import { ConfigError, loadConfig } from './config/load-config.js';
import { resolveSecrets } from './config/secrets.js';
import { startService } from './composition/service.composition.js';
import { createLogger } from './observability/logger.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger({ level: config.logLevel });
  const secrets = resolveSecrets({
    profile: config.profile,
    dataDir: config.dataDir,
    onGenerated: (names, file) =>
      logger.warn({ names, file }, 'generated missing secrets (mode 0600); set them in the environment for production'),
  });
  const service = await startService({ config, secrets, logger });

  let signalled = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (signalled) return;
      signalled = true;
      logger.info({ signal }, 'shutting down');
      const force = setTimeout(() => {
        logger.error('shutdown timed out; exiting');
        process.exit(1);
      }, config.shutdownTimeoutMs + 5_000);
      force.unref();
      service.stop().then(
        () => process.exit(0),
        (error: unknown) => {
          logger.error({ err: error }, 'shutdown failed');
          process.exit(1);
        },
      );
    });
  }
}

/** A port someone else holds is the first wall a newcomer hits: one line naming the setting, not a stack. */
function portProblem(error: unknown): string | undefined {
  if (!(error instanceof Error) || !('code' in error)) return undefined;
  const { code, port, address } = error as NodeJS.ErrnoException & { port?: number; address?: string };
  const where = `${address ?? 'the host'}:${port ?? '?'}`;
  if (code === 'EADDRINUSE')
    return `Failed to start: ${where} is already in use; stop the process that holds it or set PORT to a free port.`;
  if (code === 'EACCES' && port !== undefined)
    return `Failed to start: not allowed to listen on ${where}; set PORT to a port above 1023 or run with the needed privilege.`;
  return undefined;
}

main().catch((error: unknown) => {
  const port = portProblem(error);
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
  } else if (port) {
    process.stderr.write(`${port}\n`);
  } else {
    process.stderr.write(`Failed to start: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
