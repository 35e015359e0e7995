import type { ActorView } from '../../kernel/ports/actor-collection.port.js';
import type { JournalEntry, Page } from '../../kernel/ports/store.port.js';
import type { MachineChart } from './machine-chart.js';

/** What ops tooling (HTTP inspection routes, the CLI) may read about actors: their committed views. */
export type { ActorView, MachineChart };

export interface ActorInspector {
  /** Machine types the runtime knows. */
  types(): string[];
  /** One actor, or null when it does not exist (unknown type included). */
  inspect(type: string, id: string): Promise<ActorView | null>;
  /** Journal entries after `afterSeq`, oldest first; `nextCursor` is the last seq when more may follow. */
  journal(type: string, id: string, page: { afterSeq?: number; limit: number }): Promise<{ items: JournalEntry[]; nextAfterSeq?: number }>;
  /** The statechart of a machine type, drawn from its definition; null for an unknown type. */
  machine(type: string): MachineChart | null;
  /** Actors of a type, optionally only those in a top-level state, paged by cursor. */
  list(type: string, options: { state?: string; limit: number; cursor?: string }): Promise<Page<ActorView>>;
}
