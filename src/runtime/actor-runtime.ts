import type { AnyMachineSnapshot } from 'xstate';
import type { Logger } from 'pino';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { conflictBackoff, concurrentUpdatesGaveUp, isVersionConflict } from '../../kernel/shared/conflict-backoff.js';
import { settlesWithin } from '../../kernel/shared/settles-within.js';
import type {
  ActorCollection,
  CountOptions,
  ActorView,
  JoinedSend,
  JoinedWrites,
  JoinWrites,
  SendResult,
  StreamEvent,
  TransitionOptions,
} from '../../kernel/ports/actor-collection.port.js';
import type { ClockPort } from '../../kernel/ports/clock.port.js';
import type { ActorAddress, ActorEvent } from '../../kernel/ports/scheduler.port.js';
import type { CollectionSpec, CommitPut, IndexQuery, PageRequest, StoredDocument, StorePort } from '../../kernel/ports/store.port.js';
import type { DurablePublisher } from './durable-publisher.js';
import { collectionOf } from './actor-storage.js';
import { MachineStepper, type Step } from './machine-stepper.js';
import { Mailbox } from './mailbox.js';
import { decodeActorDocument, encodeActorDocument, topLevelState, type ActorDocument } from './snapshot-codec.js';

export interface RuntimeOptions {
  store: StorePort;
  clock: ClockPort;
  logger: Logger;
  /** Where emitted events go once their transition is durable; none in some tests. */
  publisher?: DurablePublisher;
  /** Upper bound of actors kept in memory; least recently used idle ones are passivated first. */
  maxLiveActors: number;
  /** An actor untouched this long is passivated. */
  idleMs: number;
  /** Retries of an event after losing a compare-and-set race to another process. */
  maxConflictRetries: number;
}

/** Finds actors that must resume after a restart (e.g. orders left in `submitting`). */
export type RecoveryHook = (runtime: ActorRuntime) => Promise<void>;

/** Page size of `count`'s walk over an index. */
const COUNT_PAGE = 200;

/** An actor held in memory: its committed snapshot, from which its next transition is computed. */
interface LiveActor {
  snapshot: AnyMachineSnapshot;
  version: number;
  /** The last committed state: what readers see, never a transition still being persisted. */
  committed: ActorView;
}

interface ActorEntry {
  key: string;
  id: string;
  definition: MachineDefinition;
  stepper: MachineStepper;
  mailbox: Mailbox;
  live?: LiveActor;
  lastUsed: number;
}

/**
 * Hosts the actors of every registered machine type. It is the only way state changes:
 * one mailbox per actor, every accepted event committed (snapshot with version + 1 and a
 * journal entry, atomically) before `send` resolves, emitted events published once that is
 * durable, idle actors passivated and rehydrated on demand.
 *
 * The mailbox waits for the commit only, not for the disk flush (see StorePort): an order's
 * next transition need not wait for the last one's fsync, since flushes keep commit order.
 * What leaves the service waits for durability: its events (`DurablePublisher`, in the
 * background, in order per stream); a mutating call's answer through `settled()`.
 */
export class ActorRuntime {
  private readonly definitions = new Map<string, MachineDefinition>();
  private readonly recoveryHooks: Array<{ type: string; hook: RecoveryHook }> = [];
  /** Insertion order is recency order: the first entries are the least recently used. */
  private readonly entries = new Map<string, ActorEntry>();
  /** Views of stored documents: a store shares one frozen document per version (StorePort). */
  private readonly views = new WeakMap<StoredDocument, ActorView>();
  private readonly handles = new Map<string, ActorCollection<unknown, { type: string }, unknown>>();
  /** One pure stepper per machine type (see MachineStepper). */
  private readonly steppers = new Map<string, MachineStepper>();
  private closing = false;
  private cancelSweep: (() => void) | undefined;
  private passivations = 0;

  constructor(private readonly options: RuntimeOptions) {}

  register(definition: MachineDefinition): void {
    if (this.definitions.has(definition.type)) throw new Error(`Machine type ${definition.type} registered twice`);
    this.definitions.set(definition.type, definition);
    this.steppers.set(definition.type, new MachineStepper(definition.machine));
  }

  onRecover(type: string, hook: RecoveryHook): void {
    this.recoveryHooks.push({ type, hook });
  }

  /** The store collections of the registered machine types. */
  collections(): CollectionSpec[] {
    return [...this.definitions.values()].map((d) => ({ name: collectionOf(d.type), indexes: ['state', ...(d.indexNames ?? [])] }));
  }

  /**
   * The typed handle of a registered machine type: what code outside the runtime reads,
   * creates and sends through (one per type, made once). A thin layer over `get`/`find`/
   * `create`/`send`: no read or copy of its own. The type must be registered by the time the
   * handle is used (not when it is made: services take their handles before the runtime starts).
   */
  collection<TContext, TEvent extends { type: string }, TInput>(
    definition: MachineDefinition<TContext, TEvent, TInput>,
  ): ActorCollection<TContext, TEvent, TInput> {
    let handle = this.handles.get(definition.type);
    if (!handle) {
      const { type } = definition;
      handle = {
        type,
        get: (id) => this.get({ type, id }),
        find: (query, page) => this.find(type, query, page),
        count: (query, max, options) => this.count(type, query, max, options),
        create: (id, input, options) => this.create(type, id, input, options as TransitionOptions),
        send: (id, event, options) => this.send({ type, id }, event as ActorEvent, options as TransitionOptions),
      };
      this.handles.set(type, handle);
    }
    // The definition's context type is what its actors' views hold (the runtime decodes them with it).
    return handle as unknown as ActorCollection<TContext, TEvent, TInput>;
  }

  types(): string[] {
    return [...this.definitions.keys()];
  }

  /** The registered definition of a type (what ops tools draw its statechart from), or undefined. */
  definitionOf(type: string): MachineDefinition | undefined {
    return this.definitions.get(type);
  }

  /** Declares collections, runs recovery hooks and starts the passivation sweep. */
  async start(): Promise<void> {
    await this.options.store.init(this.collections());
    for (const { type, hook } of this.recoveryHooks) {
      this.options.logger.info({ type }, 'runtime recovery');
      await hook(this);
    }
    this.armSweep();
  }

  /** Creates and persists a new actor (with `join`, together with those writes); 409 when the id is taken. */
  async create(type: string, id: string, input: unknown, options: TransitionOptions = {}): Promise<ActorView> {
    const entry = this.entryFor(this.definition(type), id);
    return this.run(entry, async () => {
      for (let attempt = 0; ; attempt++) {
        let live: LiveActor;
        let persisted: Persisted;
        try {
          persisted = await this.persist(entry, [entry.stepper.initial(input, entry.key)], 0, { type: 'xstate.init', input }, options.join);
          live = { snapshot: lastOf(persisted.steps).snapshot, version: persisted.version, committed: persisted.committed };
        } catch (error) {
          if (!isVersionConflict(error)) throw error;
          if (this.isOwnConflict(entry, error)) throw AppError.conflict(`${type} ${id} already exists`);
          // A joined record moved meanwhile: read it again and decide again.
          if (attempt >= this.options.maxConflictRetries) throw concurrentUpdatesGaveUp(entry.key, attempt + 1);
          await conflictBackoff(attempt);
          continue;
        }
        entry.live = live;
        this.publish(entry, persisted.steps, persisted.joined?.events);
        if (live.snapshot.status === 'done') this.drop(entry);
        return live.committed;
      }
    });
  }

  /** Delivers one event to an actor through its mailbox; 404 when the actor does not exist. */
  async send(address: ActorAddress, event: ActorEvent, options: TransitionOptions = {}): Promise<SendResult> {
    const entry = this.entryFor(this.definition(address.type), address.id);
    return this.run(entry, () => this.deliver(entry, event, options.join));
  }

  /**
   * The committed view of an actor, or null. Reads come from the store, not from a live
   * actor, because another process may have written since; they do not queue behind the mailbox.
   */
  async get(address: ActorAddress): Promise<ActorView | null> {
    if (!this.definitions.has(address.type)) return null;
    const doc = await this.options.store.get<ActorDocument>(collectionOf(address.type), address.id);
    return doc ? this.viewOf(address.type, doc) : null;
  }

  /** Committed views of actors of a type whose index matches (from the store, in index order). */
  async find(type: string, query: IndexQuery, page: PageRequest): Promise<{ items: ActorView[]; nextCursor?: string }> {
    const docs = await this.options.store.find<ActorDocument>(collectionOf(this.definition(type).type), query, page);
    return { items: docs.items.map((doc) => this.viewOf(type, doc)), ...(docs.nextCursor ? { nextCursor: docs.nextCursor } : {}) };
  }

  /**
   * How many actors of a type match, counting at most `max`: pages the index without decoding
   * an actor. Those in one of `exceptStates` are skipped by their stored `state` index value
   * (the embedded store decodes a document's data only when it is read).
   */
  async count(type: string, query: IndexQuery, max: number, options: CountOptions = {}): Promise<number> {
    const collection = collectionOf(this.definition(type).type);
    const except = options.exceptStates ?? [];
    let count = 0;
    let cursor: string | undefined;
    while (count < max) {
      const page = await this.options.store.find(collection, query, {
        limit: Math.min(COUNT_PAGE, max - count),
        ...(cursor ? { cursor } : {}),
      });
      for (const doc of page.items) if (!except.includes(doc.indexes.state as string)) count++;
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    return count;
  }

  /** The view of a stored actor document (as read from the type's collection); read-only. */
  viewOf(type: string, doc: StoredDocument): ActorView {
    const definition = this.definition(type);
    let view = this.views.get(doc);
    if (view?.type !== definition.type) {
      view = Object.freeze(toView(definition, doc.id, decodeActorDocument(definition, doc.id, doc.data), doc));
      this.views.set(doc, view);
    }
    return view;
  }

  stats(): { live: number; passivations: number; mailboxDepth: number } {
    let live = 0;
    let mailboxDepth = 0;
    for (const entry of this.entries.values()) {
      if (entry.live) live++;
      mailboxDepth += entry.mailbox.depth;
    }
    return { live, passivations: this.passivations, mailboxDepth };
  }

  /** Stops taking events, drains every mailbox (bounded by `timeoutMs`), stops actors. */
  async shutdown(timeoutMs = 10_000): Promise<void> {
    this.closing = true;
    this.cancelSweep?.();
    const drained = Promise.all([...this.entries.values()].map((e) => e.mailbox.drain()));
    if (!(await settlesWithin(drained, timeoutMs))) this.options.logger.warn('runtime shutdown: mailboxes did not drain in time');
    this.entries.clear();
    // Events of the last transitions go out before the bus and the store close.
    await this.settled().catch((error: unknown) => this.options.logger.warn({ err: error }, 'runtime shutdown: last events not published'));
  }

  private async deliver(entry: ActorEntry, event: ActorEvent, join: JoinWrites | undefined): Promise<SendResult> {
    for (let attempt = 0; ; attempt++) {
      const live = await this.ensureLive(entry);
      const before = live.snapshot;
      if (before.status !== 'active') {
        this.drop(entry); // finished: nothing will ever change it, keep nothing in memory
        return { accepted: false, view: live.committed };
      }
      if (!before.can(event)) return { accepted: false, view: live.committed };
      let step: Step;
      try {
        step = entry.stepper.next(before, event, entry.key);
      } catch (error) {
        this.drop(entry);
        throw error;
      }
      let persisted: Persisted;
      let after: AnyMachineSnapshot;
      try {
        persisted = await this.persist(entry, [step], live.version, event, join);
        after = lastOf(persisted.steps).snapshot;
        Object.assign(live, { snapshot: after, version: persisted.version, committed: persisted.committed });
      } catch (error) {
        // The in-memory actor is ahead of the store now: discard it and re-read.
        this.drop(entry);
        if (!isVersionConflict(error)) throw error;
        if (attempt >= this.options.maxConflictRetries) {
          throw concurrentUpdatesGaveUp(entry.key, attempt + 1);
        }
        // Full-jitter exponential backoff: two writers hammering one actor take turns instead of colliding again.
        await conflictBackoff(attempt);
        continue;
      }
      this.publish(entry, persisted.steps, persisted.joined?.events);
      // A finished actor takes no more events: free its memory now rather than at the idle sweep.
      if (after.status === 'done') this.drop(entry);
      return { accepted: true, view: live.committed };
    }
  }

  /**
   * Writes the actor's snapshot and journal entry atomically, with the writes `join` computes
   * (one `commit`); resolves once committed. `steps`: the transition taken, to which the
   * events `join` continues with are added (each must be accepted in turn, else nothing is written).
   */
  private async persist(entry: ActorEntry, steps: Step[], expectedVersion: number, event: unknown, join?: JoinWrites): Promise<Persisted> {
    const { definition } = entry;
    const collection = collectionOf(definition.type);
    const joined = join ? await join(lastOf(steps).snapshot.context) : undefined;
    const continued = joined?.continueWith ?? [];
    for (const next of continued) steps.push(this.continueWith(entry, lastOf(steps).snapshot, next));
    const { snapshot } = lastOf(steps);
    // One entry per version: events taken in the same commit are kept with the one that started it.
    const journaled = continued.length > 0 ? { ...(event as object), continuedWith: continued } : event;
    const own = this.putOf(entry, snapshot, expectedVersion, journaled);
    const others = joined?.alongside ? await this.alongsideSteps(joined.alongside) : [];
    let doc: StoredDocument;
    if (joined && (joined.writes.length > 0 || others.some((other) => other.write))) {
      let docs: Array<StoredDocument | null>;
      try {
        docs = await this.options.store.commit([own, ...joined.writes, ...others.flatMap((other) => (other.write ? [other.write] : []))]);
      } catch (error) {
        // One of them moved meanwhile (maybe another actor, in another process): read them again when the join is retried.
        for (const other of others) this.drop(other.entry);
        throw error;
      }
      doc = docs[0]!;
      let next = 1 + joined.writes.length;
      for (const other of others) other.write ? this.alongsideCommitted(other, docs[next++]!) : other.send.taken(other.result!);
    } else {
      doc = await this.options.store.put<ActorDocument>(collection, entry.id, own.input, own.journal);
      for (const other of others) other.send.taken(other.result!);
    }
    return { version: doc.version, committed: toView(definition, entry.id, snapshot, doc), steps, ...(joined ? { joined } : {}) };
  }

  /** The compare-and-set put of an actor's snapshot, with its journal entry. */
  private putOf(entry: ActorEntry, snapshot: AnyMachineSnapshot, expectedVersion: number, event: unknown): CommitPut<ActorDocument> {
    const { definition } = entry;
    const input = {
      data: encodeActorDocument(definition, entry.stepper.persisted(snapshot)),
      expectedVersion,
      indexes: { state: topLevelState(snapshot.value), ...(definition.indexes?.(snapshot.context) ?? {}) },
    };
    const journal = { event, state: snapshot.value, at: this.options.clock.now() };
    return { op: 'put', collection: collectionOf(definition.type), id: entry.id, input, journal };
  }

  /**
   * Other actors' events joined to a commit, each decided on that actor's committed state
   * (outside its mailbox: the compare-and-set of its write is what orders them with its own
   * transitions, which fail theirs and retry when this commit lands first). One whose state
   * does not take the event writes nothing and is told so.
   */
  private async alongsideSteps(sends: readonly JoinedSend[]): Promise<Alongside[]> {
    const others: Alongside[] = [];
    for (const send of sends) {
      const entry = this.entryFor(this.definition(send.type), send.id);
      // The other actor must exist (404 otherwise, and nothing is written): a join names actors it read.
      const live = await this.ensureLive(entry);
      const before = live.snapshot;
      if (before.status !== 'active' || !before.can(send.event)) {
        others.push({ entry, send, result: { accepted: false, view: live.committed } });
        continue;
      }
      const step = entry.stepper.next(before, send.event, entry.key);
      others.push({ entry, send, live, step, write: this.putOf(entry, step.snapshot, live.version, send.event) });
    }
    return others;
  }

  /** An actor's event joined to a commit is durable: its live state moves on (unless it moved meanwhile), its events go out. */
  private alongsideCommitted(other: Alongside, doc: StoredDocument): void {
    const { entry, live, step } = other;
    const committed = toView(entry.definition, entry.id, step!.snapshot, doc);
    if (entry.live === live && live!.version === other.write!.input.expectedVersion) {
      Object.assign(live!, { snapshot: step!.snapshot, version: doc.version, committed });
    } else {
      this.drop(entry);
    }
    entry.lastUsed = this.options.clock.now();
    this.publish(entry, [step!]);
    if (step!.snapshot.status === 'done') this.drop(entry);
    other.send.taken({ accepted: true, view: committed });
  }

  /** The step of an event a join continues with; one the machine does not take is a programming error. */
  private continueWith(entry: ActorEntry, snapshot: AnyMachineSnapshot, event: { type: string }): Step {
    if (snapshot.status !== 'active' || !snapshot.can(event))
      throw AppError.internal(`Actor ${entry.key} cannot continue with ${event.type} in ${JSON.stringify(snapshot.value)}`);
    return entry.stepper.next(snapshot, event, entry.key);
  }

  /** Whether a VERSION_CONFLICT names the actor's own document (not a record joined to its write). */
  private isOwnConflict(entry: ActorEntry, error: AppError): boolean {
    const details = error.details as { collection?: unknown; id?: unknown } | undefined;
    return !details || (details.collection === collectionOf(entry.definition.type) && details.id === entry.id);
  }

  /**
   * Resolves once every write committed so far is durable and the events emitted so far are
   * published (bounded: see `DurablePublisher.drained`): a surface awaits it before answering
   * a call that changed something.
   */
  async settled(): Promise<void> {
    const { publisher, store } = this.options;
    const published = publisher?.drained(); // those queued now, not the ones that follow
    // Through the publisher: one flush wait shared with the events and answers of this turn.
    await (publisher ? publisher.durable() : store.durable());
    await published;
  }

  /**
   * Queues what the actor emitted, each event with the state its transition led to, and the
   * events of records joined to its write, for publication once durable: one publication per
   * stream, so one wait for the flush covers the whole unit of work.
   */
  private publish(entry: ActorEntry, steps: readonly Step[], joined: StreamEvent[] = []): void {
    const stream = entry.definition.stream;
    const { publisher } = this.options;
    // Most sends emit nothing: no map, no copies.
    if (!publisher || ((!stream || steps.every((step) => step.emitted.length === 0)) && joined.length === 0)) return;
    const byStream = new Map<string, Array<{ type: string; data: Record<string, unknown> }>>();
    if (stream) {
      // Each transition's state: by the time the flush is done, the actor may have moved on.
      const events = steps.flatMap(({ snapshot, emitted }) =>
        emitted.map(({ type, ...data }) => ({ type, data: { state: snapshot.value, ...data } })),
      );
      const { context } = lastOf(steps).snapshot;
      if (events.length > 0) for (const name of [stream(context)].flat()) byStream.set(name, [...events]);
    }
    for (const { stream: name, type, data } of joined) {
      const list = byStream.get(name) ?? [];
      list.push({ type, data });
      byStream.set(name, list);
    }
    for (const [name, events] of byStream) publisher.publish(name, events);
  }

  private async ensureLive(entry: ActorEntry): Promise<LiveActor> {
    if (entry.live) return entry.live;
    const doc = await this.options.store.get<ActorDocument>(collectionOf(entry.definition.type), entry.id);
    if (!doc) throw AppError.notFound(`${entry.definition.type} ${entry.id} not found`);
    // A copy: the stored document is shared and frozen, the actor's state is its own.
    const snapshot = entry.stepper.restore(structuredClone(decodeActorDocument(entry.definition, entry.id, doc.data)));
    const committed = toView(entry.definition, entry.id, snapshot, doc);
    entry.live = { snapshot, version: doc.version, committed };
    return entry.live;
  }

  private run<T>(entry: ActorEntry, task: () => Promise<T>): Promise<T> {
    if (this.closing) return Promise.reject(new AppError('SHUTTING_DOWN', 'Service is shutting down', { envelope: 'standard' }));
    return entry.mailbox.enqueue(task).finally(() => {
      entry.lastUsed = this.options.clock.now();
      this.evictOverflow();
      if (!entry.live && entry.mailbox.depth === 0) this.entries.delete(entry.key);
    });
  }

  private entryFor(definition: MachineDefinition, id: string): ActorEntry {
    if (!id || id.length > 256) throw AppError.validation(['id must be 1-256 characters']);
    const key = keyOf(definition.type, id);
    let entry = this.entries.get(key);
    if (entry) {
      this.entries.delete(key); // re-insert: most recently used
    } else {
      entry = { key, id, definition, stepper: this.stepper(definition), mailbox: new Mailbox(), lastUsed: this.options.clock.now() };
    }
    this.entries.set(key, entry);
    return entry;
  }

  private definition(type: string): MachineDefinition {
    const definition = this.definitions.get(type);
    if (!definition) throw AppError.notFound(`Unknown actor type: ${type}`);
    return definition;
  }

  private stepper(definition: MachineDefinition): MachineStepper {
    const stepper = this.steppers.get(definition.type);
    if (!stepper) throw AppError.notFound(`Unknown actor type: ${definition.type}`);
    return stepper;
  }

  /** Forgets the in-memory snapshot (nothing runs to stop: transitions are pure). */
  private drop(entry: ActorEntry): void {
    delete entry.live;
  }

  private passivate(entry: ActorEntry): void {
    this.drop(entry);
    this.entries.delete(entry.key);
    this.passivations++;
  }

  private evictOverflow(): void {
    let excess = this.entries.size - this.options.maxLiveActors;
    if (excess <= 0) return;
    for (const entry of this.entries.values()) {
      if (excess <= 0) break;
      if (entry.mailbox.depth === 0) {
        this.passivate(entry);
        excess--;
      }
    }
  }

  private armSweep(): void {
    const interval = Math.max(10, Math.floor(this.options.idleMs / 2));
    this.cancelSweep = this.options.clock.setTimer(() => {
      const cutoff = this.options.clock.now() - this.options.idleMs;
      for (const entry of this.entries.values()) {
        if (entry.lastUsed <= cutoff && entry.mailbox.depth === 0) this.passivate(entry);
      }
      if (!this.closing) this.armSweep();
    }, interval);
  }
}

function toView(
  definition: MachineDefinition,
  id: string,
  snapshot: { value: unknown; status: string; context: unknown },
  doc: Pick<StoredDocument, 'version' | 'updatedAt'>,
): ActorView {
  return {
    type: definition.type,
    id,
    state: snapshot.value,
    status: snapshot.status,
    context: snapshot.context,
    version: doc.version,
    machineVersion: definition.version,
    updatedAt: new Date(doc.updatedAt).toISOString(),
  };
}

/** Another actor's event joined to a commit: its write when its state takes the event, else its outcome (not accepted). */
interface Alongside {
  entry: ActorEntry;
  send: JoinedSend;
  live?: LiveActor;
  step?: Step;
  write?: CommitPut<ActorDocument>;
  result?: SendResult;
}

/** What a commit of an actor wrote: its new version and view, the steps it took, the joined writes. */
interface Persisted extends Pick<LiveActor, 'version' | 'committed'> {
  steps: Step[];
  joined?: JoinedWrites;
}

function lastOf(steps: readonly Step[]): Step {
  return steps[steps.length - 1]!;
}

function keyOf(type: string, id: string): string {
  return `${type}/${id}`;
}
