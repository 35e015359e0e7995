/**
 * The ops token's client, shared by the ops pages of this tab: kept in memory only (never in
 * storage), so it is gone on reload, in a new tab or on "Forget token", but survives moving
 * between the ops page, an actor's inspector and the links to it from other pages.
 */
import type { OpsClient } from 'agent-runtime-sdk';
import { useEffect, useState } from 'preact/hooks';

let current: OpsClient | undefined;
const listeners = new Set<() => void>();

export function setOpsAccess(ops: OpsClient | undefined): void {
  current = ops;
  for (const listener of listeners) listener();
}

/** The ops client of this tab, if its token was given; re-renders when it is given or forgotten. */
export function useOpsAccess(): OpsClient | undefined {
  const [ops, setOps] = useState(current);
  useEffect(() => {
    const listener = () => setOps(current);
    listeners.add(listener);
    setOps(current);
    return () => void listeners.delete(listener);
  }, []);
  return ops;
}
