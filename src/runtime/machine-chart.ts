import type { AnyStateNode } from 'xstate';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';

/**
 * A machine type's statechart as data, for ops tools that draw it (the console's actor
 * inspector): every state node with its kind, initial child and outgoing transitions, read from
 * the XState definition the runtime hosts, so the drawing can never drift from the code.
 */
export interface MachineChart {
  type: string;
  /** The definition's version (`machineVersion` of an actor's view). */
  version: number;
  root: ChartNode;
}

export interface ChartNode {
  /** XState's id of the node (`order.created`), what transitions target. */
  id: string;
  key: string;
  /** Keys from the root: `['active', 'waiting']`; the root's is empty. It is how a state value names the node. */
  path: string[];
  kind: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** The key of the child a compound node enters first. */
  initial?: string;
  transitions: ChartTransition[];
  states: ChartNode[];
}

export interface ChartTransition {
  /** `event`: taken on an event; `always`: eventless, checked after every transition; `after`: a delay elapsed. */
  trigger: 'event' | 'always' | 'after';
  /** The event's type (`order.approve`), or the delay for `after` (`5000` ms or the delay's name). */
  event: string;
  /** Ids of the target nodes; empty for a transition that stays (it only runs actions). */
  targets: string[];
  /** The guard's name when the transition is guarded (an inline guard is `guarded`). */
  guard?: string;
}

/** The chart of a definition's machine. */
export function machineChart(definition: MachineDefinition): MachineChart {
  return { type: definition.type, version: definition.version, root: chartNode(definition.machine.root) };
}

function chartNode(node: AnyStateNode): ChartNode {
  const delayed = new Map<string, string>();
  for (const after of node.after) delayed.set(String(after.eventType), String(after.delay));
  const transitions: ChartTransition[] = [];
  for (const [event, list] of node.transitions) {
    const delay = delayed.get(event);
    for (const transition of list)
      transitions.push(chartTransition(delay === undefined ? 'event' : 'after', delay ?? event, transition.target, transition.guard));
  }
  for (const transition of node.always ?? []) transitions.push(chartTransition('always', '', transition.target, transition.guard));
  const states = Object.values(node.states).map(chartNode);
  const initial = node.type === 'compound' ? node.initial.target[0]?.key : undefined;
  return {
    id: node.id,
    key: node.key,
    path: [...node.path],
    kind: node.type,
    ...(initial === undefined ? {} : { initial }),
    transitions,
    states,
  };
}

function chartTransition(
  trigger: ChartTransition['trigger'],
  event: string,
  targets: readonly AnyStateNode[] | undefined,
  guard: unknown,
): ChartTransition {
  const name = guardName(guard);
  return { trigger, event, targets: (targets ?? []).map((target) => target.id), ...(name === undefined ? {} : { guard: name }) };
}

/** A guard given by name is `'name'` or `{type: 'name', params}`; an inline function has no name worth showing. */
function guardName(guard: unknown): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && 'type' in guard && typeof guard.type === 'string') return guard.type;
  return 'guarded';
}
