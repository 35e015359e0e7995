import type { Logger } from 'pino';
import type { FeatureModule } from './feature-module.types.js';

/** Stops the modules started, in reverse order. */
export type StopModules = () => Promise<void>;

/**
 * Starts modules in list order (a module may use what an earlier one started) and answers
 * how to stop them: in reverse order, each after the ones that may use it. If a start
 * fails, the modules already started are stopped (in reverse) and the failure is thrown;
 * the failing module cleans up its own half-start.
 */
export async function startModules(modules: readonly FeatureModule[], logger: Logger): Promise<StopModules> {
  const started: FeatureModule[] = [];
  for (const module of modules) {
    try {
      await module.start?.();
    } catch (error) {
      logger.error({ err: error, module: module.name }, 'module failed to start; stopping the ones started');
      await stopInReverse(started, logger).catch(() => undefined); // each failure is logged there
      throw error;
    }
    started.push(module);
  }
  return () => stopInReverse(started, logger);
}

/** Every module is told to stop even when one fails; the first failure is thrown at the end. */
async function stopInReverse(modules: readonly FeatureModule[], logger: Logger): Promise<void> {
  let failure: unknown;
  for (const module of [...modules].reverse()) {
    try {
      await module.stop?.();
    } catch (error) {
      logger.error({ err: error, module: module.name }, 'module failed to stop');
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
