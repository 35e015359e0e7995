/**
 * Where the runtime keeps the actors of a machine type: one store collection per type. Only
 * the runtime (src/runtime/) knows this (a dependency rule says so); everything else reaches
 * actors through `ActorRuntime.collection(definition)`.
 */
export function collectionOf(type: string): string {
  return `actors.${type}`;
}
