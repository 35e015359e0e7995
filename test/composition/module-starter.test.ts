import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { FeatureModule } from '../../src/composition/feature-module.types.js';
import { startModules } from '../../src/composition/module-starter.js';

const logger = pino({ level: 'silent' });

/** A module that writes `start <name>` / `stop <name>` to `log`; `failStart`/`failStop` make that step throw. */
function fake(name: string, log: string[], options: { failStart?: boolean; failStop?: boolean; noStop?: boolean } = {}): FeatureModule {
  return {
    name,
    definitions: [],
    collections: [],
    operations: [],
    bindings: [],
    routers: [],
    dueJobs: [],
    start: async () => {
      await new Promise((resolve) => setTimeout(resolve, 1)); // a start that takes a turn: the next waits for it
      log.push(`start ${name}`);
      if (options.failStart) throw new Error(`${name} cannot start`);
    },
    ...(options.noStop
      ? {}
      : {
          stop: async () => {
            log.push(`stop ${name}`);
            if (options.failStop) throw new Error(`${name} cannot stop`);
          },
        }),
  };
}

describe('startModules', () => {
  it('starts modules in list order, one after the other, and stops them in reverse', async () => {
    const log: string[] = [];
    const stop = await startModules([fake('a', log), fake('b', log, { noStop: true }), fake('c', log)], logger);
    expect(log).toEqual(['start a', 'start b', 'start c']);
    await stop();
    expect(log).toEqual(['start a', 'start b', 'start c', 'stop c', 'stop a']);
  });

  it('a failing start stops the modules already started, in reverse, and throws; later modules never start', async () => {
    const log: string[] = [];
    const modules = [fake('a', log), fake('b', log), fake('c', log, { failStart: true }), fake('d', log)];
    await expect(startModules(modules, logger)).rejects.toThrow('c cannot start');
    expect(log).toEqual(['start a', 'start b', 'start c', 'stop b', 'stop a']);
  });

  it('a failing stop does not keep the others from stopping; the first failure is thrown', async () => {
    const log: string[] = [];
    const stop = await startModules([fake('a', log, { failStop: true }), fake('b', log, { failStop: true }), fake('c', log)], logger);
    await expect(stop()).rejects.toThrow('b cannot stop');
    expect(log.slice(3)).toEqual(['stop c', 'stop b', 'stop a']);
  });

  it('modules without start or stop are skipped', async () => {
    const bare: FeatureModule = { name: 'bare', definitions: [], collections: [], operations: [], bindings: [], routers: [], dueJobs: [] };
    const log: string[] = [];
    const stop = await startModules([bare, fake('a', log)], logger);
    await stop();
    expect(log).toEqual(['start a', 'stop a']);
  });
});
