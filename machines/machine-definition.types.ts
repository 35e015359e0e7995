import type { AnyStateMachine } from 'xstate';

/**
 * What the runtime needs to host a machine type. Machines stay pure: this is data and
 * pure functions over the machine's own context, no I/O. The type parameters are what the
 * runtime's typed handle of the type (`runtime.collection(definition)`) reads, creates and sends.
 */
// biome-ignore lint/suspicious/noExplicitAny: the defaults erase a definition's types where lists of mixed definitions are held.
export interface MachineDefinition<TContext = any, TEvent extends { type: string } = any, TInput = any> {
  /** Machine type, the first half of an actor address (`agent`, `api-key`). */
  type: string;
  /** Bumped whenever the persisted snapshot's shape changes. */
  version: number;
  machine: AnyStateMachine;
  /**
   * Upgrades a persisted snapshot from the version it is keyed by to the next one. A
   * snapshot older than `version` without a migration chain is refused, never mis-read.
   */
  migrations?: Record<number, (persisted: PersistedSnapshotLike) => PersistedSnapshotLike>;
  /** Secondary index names this type is queried by (beyond `state`). */
  indexNames?: string[];
  /** Index values for a context; keys must be in `indexNames`. */
  indexes?: (context: TContext) => Record<string, string | number>;
  /** The event-bus stream(s) that events emitted by the actor are published on. */
  stream?: (context: TContext) => string | string[];
  /**
   * Never set: carries the event and input types to `runtime.collection(definition)`
   * (as XState's `types: {} as …` does), since nothing else in a definition names them.
   */
  readonly types?: { event: TEvent; input: TInput };
}

/** The JSON form XState's `getPersistedSnapshot()` produces. */
export interface PersistedSnapshotLike {
  value: unknown;
  context: Record<string, unknown>;
  status: string;
  [key: string]: unknown;
}

/** An event an actor emits for the outside world (published after persistence). */
export interface EmittedEvent {
  type: string;
  [key: string]: unknown;
}
