import type { CommitWrite, IndexQuery, Page, PageRequest } from './store.port.js';

/**
 * The actors of one machine type, as code outside the runtime reads and steers them.
 * The runtime hands out one per machine definition (`ActorRuntime.collection(definition)`),
 * typed by that definition's context, events and input; how and where actors are stored
 * (collections, documents, snapshots) stays the runtime's own business.
 */
export interface ActorCollection<TContext, TEvent extends { type: string } = { type: string }, TInput = unknown> {
  /** The machine type (the first half of an actor address, as scheduled jobs name it). */
  readonly type: string;
  /** The committed view of an actor, or null when none has this id. Reads the store; does not queue behind the actor's mailbox. */
  get(id: string): Promise<ActorView<TContext> | null>;
  /** Committed views of the actors whose index matches, in index order (`state` or one of the definition's `indexNames`). */
  find(query: IndexQuery, page: PageRequest): Promise<Page<ActorView<TContext>>>;
  /**
   * How many actors match, counting at most `max` (pages the index, decodes no actor). With
   * `exceptStates`, actors whose top-level state is one of them are not counted (told by the
   * stored `state` index value: a deleted actor still costs its read, but no decode).
   */
  count(query: IndexQuery, max: number, options?: CountOptions): Promise<number>;
  /** Creates and persists a new actor (with `join`, together with those writes); 409 when the id is taken. */
  create(id: string, input: TInput, options?: TransitionOptions<TContext, TEvent>): Promise<ActorView<TContext>>;
  /** Delivers one event through the actor's mailbox; 404 when the actor does not exist. */
  send(id: string, event: TEvent, options?: TransitionOptions<TContext, TEvent>): Promise<SendResult<TContext>>;
}

/** Narrows `ActorCollection.count`. */
export interface CountOptions {
  /** Top-level states (`deleted`) whose actors are not counted. */
  exceptStates?: readonly string[];
}

/** What is visible of an actor: its last committed state. Frozen; shared between readers. */
export interface ActorView<TContext = unknown> {
  type: string;
  id: string;
  /** XState state value, e.g. `"active"` or `{ trading: "enabled" }`. */
  state: unknown;
  /** `active`, `done`, `error` or `stopped`, as XState reports it. */
  status: string;
  context: TContext;
  version: number;
  machineVersion: number;
  /** ISO 8601. */
  updatedAt: string;
}

export interface SendResult<TContext = unknown> {
  /** False when the actor's current state does not take the event (nothing was written). */
  accepted: boolean;
  view: ActorView<TContext>;
}

/** An event for a stream, as the publisher takes it. */
export interface StreamEvent {
  stream: string;
  type: string;
  data: Record<string, unknown>;
}

/**
 * Record writes that commit with an actor's transition, all or nothing (`StorePort.commit`):
 * the transition and what it changes elsewhere (an order's fill and the positions it books)
 * are one unit of work, which no crash can cut in two.
 */
export interface JoinedWrites<TEvent extends { type: string } = { type: string }> {
  writes: CommitWrite[];
  /** Events of those writes, queued once committed, after the actor's own (durable first, commit order per stream). */
  events?: StreamEvent[];
  /**
   * Events the actor takes next, in the same commit: work whose outcome is known before
   * anything is written (a fill on a venue that settles in this store) needs no state of its
   * own on disk in between. Each must be one the machine accepts in turn, else nothing is
   * written; the journal keeps them with the event that started the commit.
   */
  continueWith?: TEvent[];
  /**
   * Events other actors take in the same commit (a DCA strategy counting the buy its tick's
   * order filled with): one commit instead of one per actor, and no crash between them. Each
   * is decided on that actor's committed state; one its state does not take writes nothing of
   * it, and the joining actor's commit goes ahead without it.
   */
  alongside?: JoinedSend[];
}

/** An event of another actor, committed with the joining actor's transition (`JoinedWrites.alongside`). */
export interface JoinedSend {
  /** The other actor's machine type and id. */
  type: string;
  id: string;
  event: { type: string };
  /** Told its outcome once the commit is made (not after a lost compare-and-set: the join runs again). */
  taken(result: SendResult): void;
}

/**
 * Computes the writes to join from fresh reads, given the actor's context after the event.
 * Runs inside the actor's mailbox, again after any lost compare-and-set (of the actor or of
 * a joined record), so it must have no effects; a refusal it throws writes nothing.
 */
export type JoinWrites<TContext = unknown, TEvent extends { type: string } = { type: string }> = (
  context: TContext,
) => Promise<JoinedWrites<TEvent>>;

export interface TransitionOptions<TContext = unknown, TEvent extends { type: string } = { type: string }> {
  join?: JoinWrites<TContext, TEvent>;
}
