/**
 * Builds the HTTP app with fakes for tests: an in-memory log sink, a private metrics
 * registry and a fake ActorInspector that records the arguments it receives.
 */
import type { Express, Router } from 'express';
import { createHttpApp, type HttpAppDeps } from '../../src/http/app.js';
import type { ReadinessReport } from '../../src/http/health.routes.js';
import { createLogger } from '../../src/observability/logger.js';
import { Metrics } from '../../src/observability/metrics.js';
import type { ActorInspector, ActorView, MachineChart } from '../../src/runtime/actor-inspector.js';
import type { JournalEntry, Page } from '../../kernel/ports/store.port.js';

export const OPS_TOKEN = 'ops-test-token-0123456789';

export function actorView(id: string, state: unknown = 'active'): ActorView {
  return {
    type: 'order',
    id,
    state,
    status: 'active',
    context: { id },
    version: 3,
    machineVersion: 1,
    updatedAt: '2025-01-01T00:00:00.000Z',
  };
}

/** A fake inspector knowing types `order` and `agent`; actor `o-1` exists. */
export class FakeInspector implements ActorInspector {
  readonly calls: { method: string; args: unknown[] }[] = [];
  listPage: Page<ActorView> = { items: [actorView('o-1')], nextCursor: 'cursor-2' };
  journalPage: { items: JournalEntry[]; nextAfterSeq?: number } = {
    items: [{ seq: 1, event: { type: 'order.created' }, state: 'pending_approval', at: 1 }],
    nextAfterSeq: 1,
  };

  types(): string[] {
    return ['order', 'agent'];
  }

  machine(type: string): MachineChart | null {
    this.calls.push({ method: 'machine', args: [type] });
    if (type !== 'order') return null;
    const leaf = (key: string) => ({ id: `order.${key}`, key, path: [key], kind: 'atomic' as const, transitions: [], states: [] });
    return {
      type,
      version: 1,
      root: {
        id: 'order',
        key: 'order',
        path: [],
        kind: 'compound',
        initial: 'active',
        transitions: [],
        states: [
          { ...leaf('active'), transitions: [{ trigger: 'event', event: 'order.fill', targets: ['order.filled'] }] },
          leaf('filled'),
        ],
      },
    };
  }

  async inspect(type: string, id: string): Promise<ActorView | null> {
    this.calls.push({ method: 'inspect', args: [type, id] });
    return id === 'o-1' ? actorView(id) : null;
  }

  async journal(type: string, id: string, page: { afterSeq?: number; limit: number }) {
    this.calls.push({ method: 'journal', args: [type, id, page] });
    return this.journalPage;
  }

  async list(type: string, options: { state?: string; limit: number; cursor?: string }): Promise<Page<ActorView>> {
    this.calls.push({ method: 'list', args: [type, options] });
    return this.listPage;
  }
}

export interface TestApp {
  app: Express;
  logs: string[];
  metrics: Metrics;
  inspector: FakeInspector;
  setReadiness(report: ReadinessReport | Error): void;
}

export function createTestApp(options: { routers?: Router[]; bodyLimitBytes?: number } = {}): TestApp {
  const logs: string[] = [];
  const logger = createLogger({ level: 'debug', destination: { write: (line: string) => void logs.push(line) } });
  // Default metrics register process observers; not needed to test the HTTP ones.
  const metrics = new Metrics({ defaultMetrics: false });
  const inspector = new FakeInspector();
  let readiness: ReadinessReport | Error = { ready: true, checks: { store: 'ok' } };
  const deps: HttpAppDeps = {
    logger,
    metrics,
    inspector,
    opsToken: OPS_TOKEN,
    readiness: async () => {
      if (readiness instanceof Error) throw readiness;
      return readiness;
    },
    ...(options.routers === undefined ? {} : { routers: options.routers }),
    ...(options.bodyLimitBytes === undefined ? {} : { bodyLimitBytes: options.bodyLimitBytes }),
  };
  return {
    app: createHttpApp(deps),
    logs,
    metrics,
    inspector,
    setReadiness: (report) => {
      readiness = report;
    },
  };
}
