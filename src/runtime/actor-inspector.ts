import type { ActorView } from '../../kernel/ports/actor-collection.port.js';
import type { JournalEntry, Page } from '../../kernel/ports/store.port.js';

/** What ops tooling (HTTP inspection routes, the CLI) may read about actors: their committed views. */
export type { ActorView };

export interface ActorInspector {
  /** Machine types the runtime knows. */
  types(): string[];
  /** One actor, or null when it does not exist (unknown type included). */
  inspect(type: string, id: string): Promise<ActorView | null>;
  /** Journal entries after `afterSeq`, oldest first; `nextCursor` is the last seq when more may follow. */
  journal(type: string, id: string, page: { afterSeq?: number; limit: number }): Promise<{ items: JournalEntry[]; nextAfterSeq?: number }>;
  /** Actors of a type, optionally only those in a top-level state, paged by cursor. */
  list(type: string, options: { state?: string; limit: number; cursor?: string }): Promise<Page<ActorView>>;
}
