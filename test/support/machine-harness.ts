import { createActor, type AnyStateMachine, type InputFrom } from 'xstate';

/**
 * Starts an actor of `machine` fresh from `input`, or restored from a persisted
 * `snapshot`, and records what it emits: the shape of every machine test.
 */
export function startActor<M extends AnyStateMachine>(machine: M, input: InputFrom<M>, snapshot?: unknown) {
  const actor = createActor(machine, (snapshot ? { snapshot, input } : { input }) as never);
  const emitted: unknown[] = [];
  actor.on('*', (event: unknown) => emitted.push(event));
  actor.start();
  return { actor, emitted };
}
