import type { Router } from 'express';
import type { StatusReader } from '../../agents/portfolio/portfolio.types.js';
import type { MachineDefinition } from '../../machines/machine-definition.types.js';
import type { RestBinding } from '../http/routes/operation.routes.js';
import type { AnyOperation } from '../operations/operation.types.js';
import type { DueJobHandler } from '../ports/scheduler.port.js';
import type { CollectionSpec } from '../ports/store.port.js';

/** What the trading core adds to the service: catalog operations, their REST routes, stores and machines. */
export interface TradingModule {
  operations: AnyOperation[];
  bindings: RestBinding[];
  collections: CollectionSpec[];
  definitions: MachineDefinition[];
  /** Routers of their own (ops routes), mounted beside the operation routes; their paths are absolute. */
  routers?: Router[];
  /** Status and portfolio reads, positions valued at the venue's prices (ask_bot and the portfolio tool share it). */
  status?: StatusReader;
  /** Due jobs of these actor types go to their handler instead of straight to the actor (e.g. DCA ticks place orders). */
  dueJobs: Record<string, DueJobHandler>;
  /** Runs after the runtime started (e.g. reconciliation of orders left in flight). */
  start(): Promise<void>;
  /** Stops timers before the runtime drains. */
  stop(): Promise<void>;
}

