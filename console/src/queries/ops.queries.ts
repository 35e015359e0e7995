/** Reads of the ops page (ops token), each a hook with its loading and error state and `reload`. */
import type { ActorView, OpsClient } from 'agent-runtime-sdk';
import { useLoad } from '../hooks/use-load.js';

export const useKillSwitch = (ops: OpsClient) => useLoad(() => ops.killSwitch.get(), [ops]);

export const useCatalog = (ops: OpsClient) => useLoad(() => ops.catalog.get(), [ops]);

export const useActorTypes = (ops: OpsClient) => useLoad(() => ops.actors.types(), [ops]);

/** Actors of one type (in one state when given); nothing until a type is chosen. */
export const useActors = (ops: OpsClient, filter: { type: string; state: string }) =>
  useLoad(
    async () => (filter.type ? ops.actors.list(filter.type, { limit: 50, ...(filter.state ? { state: filter.state } : {}) }) : undefined),
    [ops, filter],
  );

export const useActor = (ops: OpsClient, actor: ActorView) => useLoad(() => ops.actors.get(actor.type, actor.id), [ops, actor]);

export const useActorJournal = (ops: OpsClient, actor: ActorView) =>
  useLoad(() => ops.actors.journal(actor.type, actor.id, { limit: 100 }), [ops, actor]);
