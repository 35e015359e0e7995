/**
 * A machine's statechart drawn from its definition (the service's `ops/machines/:type`): each
 * state a box nested in its parent, with its outgoing transitions (event → target, guard), the
 * initial and final states marked, and the actor's current state highlighted and named, so the
 * picture says in words what the colour shows. Boxes wrap on a narrow screen.
 */
import type { ChartNode, ChartTransition, MachineChart } from 'agent-runtime-sdk';
import './statechart.css';

/** The nodes a state value names, as `/`-joined paths: `{active: 'waiting'}` → `active`, `active/waiting`. */
export function activePaths(value: unknown, prefix: string[] = []): Set<string> {
  const found = new Set<string>();
  if (typeof value === 'string') found.add([...prefix, value].join('/'));
  else if (value && typeof value === 'object')
    for (const [key, child] of Object.entries(value)) {
      found.add([...prefix, key].join('/'));
      for (const path of activePaths(child, [...prefix, key])) found.add(path);
    }
  return found;
}

export function Statechart({ chart, state }: { chart: MachineChart; state: unknown }) {
  const active = activePaths(state);
  const names = new Map<string, string>();
  const index = (node: ChartNode) => {
    names.set(node.id, node.path.length ? node.path.join('.') : node.key);
    for (const child of node.states) index(child);
  };
  index(chart.root);
  const current = [...active].filter((path) => ![...active].some((other) => other.startsWith(`${path}/`)));
  return (
    <figure class="statechart" aria-labelledby="statechart-title">
      <figcaption id="statechart-title">
        Statechart of <strong>{chart.type}</strong> <span class="muted small">(definition v{chart.version})</span>
        {current.length ? (
          <>
            {' '}
            — current state: <strong class="mono">{current.map((path) => path.replaceAll('/', '.')).join(', ')}</strong>
          </>
        ) : null}
      </figcaption>
      <Transitions list={chart.root.transitions} names={names} label={`In every state of ${chart.type}`} />
      <ul class="states" aria-label={`States of ${chart.type}`}>
        {chart.root.states.map((node) => (
          <StateBox key={node.id} node={node} parent={chart.root} active={active} names={names} />
        ))}
      </ul>
    </figure>
  );
}

function StateBox(props: { node: ChartNode; parent: ChartNode; active: Set<string>; names: Map<string, string> }) {
  const { node, active, names } = props;
  const path = node.path.join('/');
  const isActive = active.has(path);
  const isCurrent = isActive && !node.states.some((child) => active.has(child.path.join('/')));
  const name = names.get(node.id) ?? node.key;
  return (
    <li
      class={`state ${node.kind}${isActive ? ' active' : ''}${isCurrent ? ' current' : ''}`}
      aria-current={isCurrent ? 'true' : undefined}
      aria-label={`State ${name}${isCurrent ? ' (current)' : ''}`}
    >
      <div class="state-head">
        <span class="mono state-name">{node.key}</span>
        {props.parent.initial === node.key ? <span class="tag">initial</span> : null}
        {node.kind === 'final' ? <span class="tag">final</span> : null}
        {node.kind === 'parallel' ? <span class="tag">parallel</span> : null}
        {isCurrent ? <span class="tag now">current</span> : null}
      </div>
      <Transitions list={node.transitions} names={names} label={`Transitions from ${name}`} />
      {node.states.length ? (
        <ul class="states" aria-label={`States inside ${name}`}>
          {node.states.map((child) => (
            <StateBox key={child.id} node={child} parent={node} active={active} names={names} />
          ))}
        </ul>
      ) : null}
    </li>
  );
}

function Transitions({ list, names, label }: { list: ChartTransition[]; names: Map<string, string>; label: string }) {
  if (list.length === 0) return null;
  return (
    <ul class="transitions" aria-label={label}>
      {list.map((transition, index) => (
        // Transitions have no id of their own; the list is the definition's, fixed for the page's life.
        <li key={`${index}:${transition.event}`}>
          <span class="mono">{trigger(transition)}</span>
          {transition.guard ? <span class="guard"> [{transition.guard}]</span> : null} →{' '}
          {transition.targets.length ? (
            <span class="mono">{transition.targets.map((id) => names.get(id) ?? id).join(', ')}</span>
          ) : (
            <span class="muted">stays</span>
          )}
        </li>
      ))}
    </ul>
  );
}

function trigger(transition: ChartTransition): string {
  if (transition.trigger === 'always') return 'always';
  if (transition.trigger === 'after') return /^\d+$/.test(transition.event) ? `after ${transition.event} ms` : `after ${transition.event}`;
  return transition.event;
}
