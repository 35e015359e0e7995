/** Reads of the ops page (ops token), each a hook with its loading and error state and `reload`. */
import type { OpsClient } from 'agent-runtime-sdk';
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

export const useActor = (ops: OpsClient, type: string, id: string) => useLoad(() => ops.actors.get(type, id), [ops, type, id]);

/** The journal's first 200 entries, oldest first (the most one page holds). */
export const useActorJournal = (ops: OpsClient, type: string, id: string) =>
  useLoad(() => ops.actors.journal(type, id, { limit: 200 }), [ops, type, id]);

/** The statechart of a machine type, drawn from its definition. */
export const useMachineChart = (ops: OpsClient, type: string) => useLoad(() => ops.actors.machine(type), [ops, type]);
