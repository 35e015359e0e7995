import { assign, setup } from 'xstate';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';

/**
 * A test machine whose every `inc` is accepted and remembered, so tests can check that
 * version = 1 + number of events and that each event was applied exactly once.
 */
const counterMachine = setup({
  types: { context: {} as { n: number; seen: string[] }, events: {} as { type: 'inc'; tag: string } | { type: 'stop' } },
}).createMachine({
  id: 'counter',
  initial: 'on',
  context: { n: 0, seen: [] },
  states: {
    on: {
      on: {
        inc: { actions: assign({ n: ({ context }) => context.n + 1, seen: ({ context, event }) => [...context.seen, event.tag] }) },
        stop: 'off',
      },
    },
    off: { type: 'final' },
  },
});

export const counterDefinition: MachineDefinition = { type: 'counter', version: 1, machine: counterMachine };
