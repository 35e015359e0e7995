/**
 * A child process running the real service (composition root, real adapters) plus the
 * test `counter` machine. The parent drives it over IPC: `create` and `send` are
 * acknowledged only after the runtime resolved them, i.e. after the write was durable.
 * Run with `node --import tsx test/support/service-child.ts`.
 */
import pino from 'pino';
import { loadConfig } from '../../src/config/load-config.js';
import { resolveSecrets } from '../../src/config/secrets.js';
import { startService } from '../../src/composition/service.composition.js';
import { counterDefinition } from './counter.machine.js';
import { StallingStore } from './stalling-store.js';

export type ChildRequest =
  | { op: 'create'; rid: number; id: string }
  | { op: 'send'; rid: number; id: string; tag: string }
  /** Every store call of this process waits `ms` (acknowledged when the stall is over). */
  | { op: 'stall-store'; rid: number; ms: number }
  | { op: 'stop'; rid: number };

export type ChildReply =
  | { op: 'ready'; url: string; opsToken: string }
  | { op: 'ack'; rid: number; ok: true; version: number }
  | { op: 'ack'; rid: number; ok: false; error: string };

const config = loadConfig();
const secrets = resolveSecrets({ profile: config.profile, dataDir: config.dataDir });
let stalling: StallingStore | undefined;
const service = await startService({
  config,
  secrets,
  logger: pino({ level: 'silent' }),
  definitions: [counterDefinition],
  decorateStore: (store) => {
    stalling = new StallingStore(store);
    return stalling.store;
  },
});
const reply = (message: ChildReply) => process.send?.(message);

process.on('message', (raw: ChildRequest) => {
  const run = async (): Promise<number> => {
    if (raw.op === 'create') return (await service.runtime.create('counter', raw.id, undefined)).version;
    if (raw.op === 'send') return (await service.runtime.send({ type: 'counter', id: raw.id }, { type: 'inc', tag: raw.tag })).view.version;
    if (raw.op === 'stall-store') {
      await stalling?.stall(raw.ms);
      return 0;
    }
    await service.stop();
    return 0;
  };
  run().then(
    (version) => {
      reply({ op: 'ack', rid: raw.rid, ok: true, version });
      if (raw.op === 'stop') process.exit(0);
    },
    (error: unknown) => {
      reply({ op: 'ack', rid: raw.rid, ok: false, error: error instanceof Error ? error.message : String(error) });
      // A failed stop must still end the process (with the reason on stderr), or its parent waits forever.
      if (raw.op === 'stop') {
        console.error('service child: stop failed', error);
        process.exit(1);
      }
    },
  );
});

reply({ op: 'ready', url: service.url, opsToken: secrets.OPS_TOKEN });
