import type { StorePort } from '../../kernel/ports/store.port.js';

/** Calls that stay free: opening and closing the store, and the readiness probe's ping. */
const FREE = new Set<string | symbol>(['init', 'close', 'ping']);

/**
 * The same store, with a switch that stalls it: every data call made while a stall is on waits
 * until the stall ends, then runs (a slow disk or a store that stopped answering for a while,
 * without losing anything). Calls already running finish as usual.
 */
export class StallingStore {
  private gate: Promise<void> | undefined;
  readonly store: StorePort;

  constructor(inner: StorePort) {
    this.store = new Proxy(inner, {
      get: (target, name, receiver) => {
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== 'function' || FREE.has(name)) return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          while (this.gate) await this.gate;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
  }

  /** Stalls the store for `ms`; resolves when the stall is over. */
  stall(ms: number): Promise<void> {
    const gate = new Promise<void>((resolve) => setTimeout(resolve, ms));
    this.gate = gate;
    return gate.then(() => {
      if (this.gate === gate) this.gate = undefined;
    });
  }
}
