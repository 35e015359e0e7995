import { redactSecrets } from '../observability/logger.js';
import type { JournalEntry, StorePort } from '../../kernel/ports/store.port.js';
import type { ActorInspector, ActorView } from './actor-inspector.js';
import type { ActorRuntime } from './actor-runtime.js';
import { collectionOf } from './actor-storage.js';
import { type MachineChart, machineChart } from './machine-chart.js';

/**
 * Ops inspection over the runtime's committed state: what the ops routes and the CLI read.
 * Secret material (a key's `secretHash`, a session's refresh jti) is censored here, with the
 * logger's list and function, so neither surface can show what the logs would not.
 */
export class RuntimeInspector implements ActorInspector {
  constructor(
    private readonly runtime: ActorRuntime,
    private readonly store: StorePort,
  ) {}

  types(): string[] {
    return this.runtime.types();
  }

  machine(type: string): MachineChart | null {
    const definition = this.runtime.definitionOf(type);
    return definition ? machineChart(definition) : null;
  }

  async inspect(type: string, id: string): Promise<ActorView | null> {
    const view = await this.runtime.get({ type, id });
    return view && redactView(view);
  }

  async journal(type: string, id: string, page: { afterSeq?: number; limit: number }) {
    if (!this.runtime.types().includes(type)) return { items: [] };
    const items = await this.store.readJournal(collectionOf(type), id, {
      limit: page.limit,
      ...(page.afterSeq === undefined ? {} : { afterSeq: page.afterSeq }),
    });
    const last = items.at(-1);
    return { items: items.map(redactEntry), ...(items.length === page.limit && last ? { nextAfterSeq: last.seq } : {}) };
  }

  async list(type: string, options: { state?: string; limit: number; cursor?: string }) {
    if (!this.runtime.types().includes(type)) return { items: [] };
    const page = { limit: options.limit, ...(options.cursor ? { cursor: options.cursor } : {}) };
    const docs = options.state
      ? await this.store.find(collectionOf(type), { index: 'state', eq: options.state }, page)
      : await this.store.list(collectionOf(type), page);
    return {
      items: docs.items.map((doc) => redactView(this.runtime.viewOf(type, doc))),
      ...(docs.nextCursor ? { nextCursor: docs.nextCursor } : {}),
    };
  }
}

function redactView(view: ActorView): ActorView {
  return { ...view, context: redactSecrets(view.context) };
}

function redactEntry(entry: JournalEntry): JournalEntry {
  return { ...entry, event: redactSecrets(entry.event), state: redactSecrets(entry.state) };
}
