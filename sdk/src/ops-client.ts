/**
 * The service operator's client (the ops token, interface "ops" routes under `/api/nest/ops`):
 * the per-chain trading kill switch, operation families and single operations on and off, and
 * actor inspection as `agentctl` reads it (types, actors of a type, one actor, its journal) and a
 * machine type's statechart.
 * The token is the caller's: the client keeps it in memory and sends it as a bearer token.
 */
import { type CallOptions, queryString, seg } from './call-options.js';
import { HttpTransport, type RetryObserver } from './http-transport.js';
import type { Chain } from './generated/tools.js';
import { resolveRuntime, type SdkRuntimeOptions } from './runtime.js';

export interface OpsClientOptions extends SdkRuntimeOptions {
  /** Where the service is reached, e.g. `https://agents.example.com`. */
  baseUrl: string;
  /** The service's OPS_TOKEN. */
  opsToken: string;
  onRetry?: RetryObserver;
}

/** A chain of the per-chain kill switch: every chain the service trades on. */
export type OpsChain = Chain;

/** Answer of both kill-switch routes: the chains where trading is stopped, and every chain's switch. */
export interface KillSwitchStatus {
  active: OpsChain[];
  chains: Array<{ chain: OpsChain; active: boolean; source?: 'configuration' | 'operator'; since?: string }>;
}

/** Answer of both catalog routes: its settings and every operation with its family. */
export interface CatalogView {
  /** Grows with every change of the catalog or its settings. */
  version: number;
  settings: { disabledFamilies: string[]; disabledOperations: string[] };
  operations: Array<{ name: string; family: string; minScope: string; principals: string[] }>;
}

/** One actor's committed view: `state` is the machine's state value, `status` XState's run status. */
export interface ActorView {
  type: string;
  id: string;
  state: unknown;
  status: string;
  /** Secret material is censored, as in the logs. */
  context: unknown;
  version: number;
  machineVersion: number;
  updatedAt: string;
}

export interface ActorJournal {
  /** Oldest first; `at` is epoch ms. */
  items: Array<{ seq: number; event: unknown; state: unknown; at: number }>;
  /** Present when more entries may follow: pass it as `afterSeq`. */
  nextAfterSeq?: number;
}

/** One transition of a statechart node. */
export interface ChartTransition {
  /** `event`: on an event; `always`: eventless, checked after every transition; `after`: a delay elapsed. */
  trigger: 'event' | 'always' | 'after';
  /** The event's type, or the delay (ms or its name) for `after`; empty for `always`. */
  event: string;
  /** Ids of the target nodes; empty when the transition stays where it is (actions only). */
  targets: string[];
  /** The guard's name, when guarded. */
  guard?: string;
}

/** One state node of a statechart; `path` (keys from the root) is how an actor's `state` value names it. */
export interface ChartNode {
  id: string;
  key: string;
  path: string[];
  kind: 'atomic' | 'compound' | 'parallel' | 'final' | 'history';
  /** The child a compound node enters first (its key). */
  initial?: string;
  transitions: ChartTransition[];
  states: ChartNode[];
}

/** A machine type's statechart, read from the definition the runtime hosts. */
export interface MachineChart {
  type: string;
  version: number;
  root: ChartNode;
}

const OPS = '/api/nest/ops';

export class OpsClient {
  private readonly http: HttpTransport;
  private readonly token: string;

  constructor(options: OpsClientOptions) {
    this.http = new HttpTransport(options.baseUrl.replace(/\/+$/, ''), resolveRuntime(options));
    this.http.onRetry = options.onRetry;
    this.token = options.opsToken;
  }

  readonly killSwitch = {
    get: (o?: CallOptions) => this.send<KillSwitchStatus>('GET', `${OPS}/trading/kill-switch`, undefined, o),
    /** `active: true` stops trading on `chain` at once, on every process; false lets it resume. */
    set: (input: { chain: OpsChain; active: boolean }, o?: CallOptions) =>
      this.send<KillSwitchStatus>('PUT', `${OPS}/trading/kill-switch`, input, o),
  };

  readonly catalog = {
    get: (o?: CallOptions) => this.send<CatalogView>('GET', `${OPS}/catalog`, undefined, o),
    /** Replaces the settings: the families and operations listed are off for everyone, the rest on. */
    set: (input: CatalogView['settings'], o?: CallOptions) => this.send<CatalogView>('PUT', `${OPS}/catalog`, input, o),
  };

  readonly actors = {
    types: (o?: CallOptions) => this.send<{ types: string[] }>('GET', `${OPS}/actors`, undefined, o),
    /** The statechart of a machine type (states, transitions, guards' names), to draw it. */
    machine: (type: string, o?: CallOptions) => this.send<MachineChart>('GET', `${OPS}/machines/${seg(type)}`, undefined, o),
    list: (type: string, query: { state?: string; limit?: number; cursor?: string } = {}, o?: CallOptions) =>
      this.send<{ items: ActorView[]; nextCursor?: string }>('GET', `${OPS}/actors/${seg(type)}${queryString({ ...query })}`, undefined, o),
    get: (type: string, id: string, o?: CallOptions) => this.send<ActorView>('GET', `${OPS}/actors/${seg(type)}/${seg(id)}`, undefined, o),
    journal: (type: string, id: string, page: { afterSeq?: number; limit?: number } = {}, o?: CallOptions) =>
      this.send<ActorJournal>('GET', `${OPS}/actors/${seg(type)}/${seg(id)}/journal${queryString({ ...page })}`, undefined, o),
  };

  private async send<T>(method: 'GET' | 'PUT', path: string, body: unknown, o: CallOptions = {}): Promise<T> {
    const answer = await this.http.send({
      method,
      path,
      ...(body === undefined ? {} : { body }),
      headers: () => ({ authorization: `Bearer ${this.token}` }),
      signal: o.signal,
      timeoutMs: o.timeoutMs,
      maxAttempts: o.maxAttempts,
    });
    return answer.body as T;
  }
}
