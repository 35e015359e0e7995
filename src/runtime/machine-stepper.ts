import { createActor, type AnyActorScope, type AnyMachineSnapshot, type AnyStateMachine } from 'xstate';
import type { EmittedEvent } from '../../machines/machine-definition.types.js';
import { AppError } from '../../kernel/errors/app-error.js';

/** A machine's next snapshot and the events its transition emitted (not yet published). */
export interface Step {
  snapshot: AnyMachineSnapshot;
  emitted: EmittedEvent[];
}

/** The executable actions XState hands the scope's executor; only `emit` matters here. */
interface ExecutableAction {
  type: string;
  params?: unknown;
}

/**
 * A machine's transitions as pure functions (XState v5's `initialTransition`/`transition`,
 * with one inert scope per machine instead of one per call): no actor is created, started
 * or stopped per entity. The runtime's machines only assign and emit (no timers, no invoked
 * or spawned children: scheduled events come from the scheduler), so a snapshot and the
 * events it emitted are the whole effect of an event. An actor per order cost a fifth of a
 * swap's main-thread time, spent making and stopping it around two transitions.
 *
 * XState's own `transition` builds an inert actor (which computes an initial snapshot) on
 * every call; this scope is built once and only its action list is renewed. Every call runs
 * synchronously, so one list per stepper is never shared by two transitions at once.
 */
export class MachineStepper {
  private readonly scope: AnyActorScope;
  private actions: ExecutableAction[] = [];

  constructor(private readonly machine: AnyStateMachine) {
    // Never started: it is the `self` XState's action resolution names (as its inert scope does).
    // Its eager initial snapshot without input may fail; that snapshot is never used.
    const self = createActor(machine);
    this.scope = {
      self,
      id: '',
      sessionId: '',
      system: self.system,
      logger: () => undefined,
      defer: () => undefined,
      stopChild: () => undefined,
      emit: () => undefined,
      actionExecutor: (action: ExecutableAction) => void this.actions.push(action),
    } as unknown as AnyActorScope;
  }

  /** The snapshot a new entity starts in, from its input. */
  initial(input: unknown, where: string): Step {
    return this.run(where, 'xstate.init', () => this.machine.getInitialSnapshot(this.scope, input) as AnyMachineSnapshot);
  }

  /** The snapshot `event` leads to (the caller checks `snapshot.can(event)` first). */
  next(snapshot: AnyMachineSnapshot, event: { type: string }, where: string): Step {
    return this.run(where, event.type, () => this.machine.transition(snapshot, event, this.scope) as AnyMachineSnapshot);
  }

  /** A stored (persisted) snapshot as a live one: state nodes resolved, nothing executed. */
  restore(persisted: unknown): AnyMachineSnapshot {
    return this.machine.restoreSnapshot(persisted as never, this.scope) as AnyMachineSnapshot;
  }

  /** What the store keeps of a snapshot (XState's persisted form). */
  persisted(snapshot: AnyMachineSnapshot): unknown {
    return this.machine.getPersistedSnapshot(snapshot);
  }

  private run(where: string, eventType: string, transition: () => AnyMachineSnapshot): Step {
    this.actions = [];
    let snapshot: AnyMachineSnapshot;
    try {
      snapshot = transition();
    } catch (error) {
      throw AppError.internal(`Actor ${where} failed on ${eventType}`, error);
    }
    if (snapshot.status === 'error') throw AppError.internal(`Actor ${where} failed on ${eventType}`, snapshot.error);
    const emitted: EmittedEvent[] = [];
    for (const action of this.actions) {
      if (action.type === 'xstate.emit') emitted.push((action.params as { event: EmittedEvent }).event);
    }
    this.actions = [];
    return { snapshot, emitted };
  }
}
