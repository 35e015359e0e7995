/**
 * The chaos run's cluster: its own redis-server, three service processes on one data
 * directory (the embedded LMDB store, shared) and that Redis (BullMQ, the event bus, rate
 * budgets), behind the round-robin balancer; and the faults, each recorded as a window.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServiceProcess } from '../support/service-process.js';
import { PUBLIC_URL } from '../support/test-service.js';
import type { FaultWindow } from './chaos-invariants.js';
import { OwnRedis } from './own-redis.js';
import { RoundRobinProxy } from './round-robin-proxy.js';

/** The Redis key prefix of the run's processes. */
export const CLUSTER_PREFIX = 'chaos';

export class ChaosCluster {
  readonly faults: FaultWindow[] = [];
  kills = 0;
  /** Processes killed and not serving again yet. */
  readonly down = new Set<number>();

  private constructor(
    readonly dataDir: string,
    readonly redis: OwnRedis,
    private readonly env: Record<string, string>,
    readonly processes: ServiceProcess[],
    readonly proxy: RoundRobinProxy & { url: string },
  ) {}

  static async start(size: number, extraEnv: Record<string, string>): Promise<ChaosCluster> {
    const dataDir = mkdtempSync(join(tmpdir(), 'chaos-'));
    const redis = await OwnRedis.start();
    const env = { DATA_DIR: dataDir, REDIS_URL: redis.url, REDIS_KEY_PREFIX: CLUSTER_PREFIX, PUBLIC_URL, ...extraEnv };
    const processes = await Promise.all(Array.from({ length: size }, () => ServiceProcess.start(env)));
    const proxy = await RoundRobinProxy.start(processes.map((p) => p.url));
    return new ChaosCluster(dataDir, redis, env, processes, proxy);
  }

  get opsToken(): string {
    return this.processes[0]!.opsToken;
  }

  /** SIGKILL of process `i`, out of the balancer at once; started again after `downMs`, back in once it serves. */
  async killAndRestart(i: number, downMs: number): Promise<void> {
    const from = Date.now();
    this.down.add(i);
    this.proxy.markDown(i);
    await this.processes[i]!.kill();
    this.kills += 1;
    await sleep(downMs);
    const restarted = await ServiceProcess.start(this.env);
    this.processes[i] = restarted;
    this.proxy.markUp(i, restarted.url);
    this.down.delete(i);
    this.faults.push({ kind: 'kill', from, to: Date.now() });
  }

  /** Freezes Redis for `ms` (SIGSTOP, then SIGCONT). */
  async pauseRedis(ms: number): Promise<void> {
    const from = Date.now();
    this.redis.pause();
    try {
      await sleep(ms);
    } finally {
      this.redis.resume();
    }
    this.faults.push({ kind: 'redis-pause', from, to: Date.now() });
  }

  /** Every store call of every process waits for `ms` (the store stops answering, then catches up). */
  async stallStore(ms: number): Promise<void> {
    const from = Date.now();
    await Promise.all(this.processes.filter((_, i) => !this.down.has(i)).map((p) => p.stallStore(ms)));
    this.faults.push({ kind: 'store-stall', from, to: Date.now() });
  }

  /** Graceful stop of every process (their writes flushed), then the balancer and Redis. */
  async stop(): Promise<void> {
    await Promise.all(this.processes.map((p) => p.stop().catch(() => p.kill())));
    await this.proxy.close();
    await this.redis.stop();
  }

  /** Kills whatever still runs and removes the data directory (after a failure too). */
  async destroy(): Promise<void> {
    await Promise.all(this.processes.filter((p) => p.child.exitCode === null && p.child.signalCode === null).map((p) => p.kill()));
    await this.proxy.close().catch(() => undefined);
    await this.redis.stop();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
