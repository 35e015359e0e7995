/**
 * A redis-server of the chaos run's own, on a free port and without persistence: pausing it
 * (SIGSTOP) freezes this run's Redis and nobody else's.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from '../support/free-port.js';

export class OwnRedis {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<OwnRedis> {
    const port = await freePort();
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    const url = `redis://127.0.0.1:${port}`;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined); // not up yet: the loop tries again
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') break;
      } catch {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server on ${port} did not start`);
        await sleep(50);
      } finally {
        probe.disconnect();
      }
    }
    return new OwnRedis(child, url);
  }

  /** Freezes the server: connections stay open, nothing is answered (SIGSTOP). */
  pause(): void {
    this.child.kill('SIGSTOP');
  }

  resume(): void {
    this.child.kill('SIGCONT');
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGCONT');
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.kill('SIGKILL');
    await exited;
  }
}
