import type { z } from 'zod';
import { scopeCovers } from '../../kernel/vocabulary/scopes.js';
import { AppError } from '../../kernel/errors/app-error.js';
import { validationHint, validationMessages } from '../../kernel/errors/validation-messages.js';
import type { AnyOperation, CallContext, OperationContext, OperationFamily, Viewer } from './operation.types.js';

export type { Viewer } from './operation.types.js';

/** Runtime configuration of what the catalog exposes; `configure` swaps it without a restart. */
export interface CatalogSettings {
  /** Families switched off for everyone. */
  disabledFamilies: OperationFamily[];
  /** Operations switched off by name (e.g. after an incident). */
  disabledOperations: string[];
}

const DEFAULT_CATALOG_SETTINGS: CatalogSettings = { disabledFamilies: [], disabledOperations: [] };

/** Why an operation is not callable by a viewer; `scope` is the only reason a caller is told. */
export type Refusal = 'unknown' | 'hidden' | 'scope';

/**
 * Every capability of the service, once. REST routes and MCP tools are bound from here;
 * visibility (scope, principal kind, configuration) and input validation live here so
 * both surfaces behave the same.
 */
export class OperationCatalog {
  private readonly operations = new Map<string, AnyOperation>();
  private settings: CatalogSettings = DEFAULT_CATALOG_SETTINGS;
  private revision = 0;

  register(...operations: AnyOperation[]): this {
    for (const operation of operations) {
      if (this.operations.has(operation.name)) throw new Error(`Operation ${operation.name} registered twice`);
      this.operations.set(operation.name, operation);
    }
    this.revision++;
    return this;
  }

  /** Replaces the runtime settings; `tools/list` follows at once. */
  configure(settings: CatalogSettings): void {
    this.settings = { disabledFamilies: [...settings.disabledFamilies], disabledOperations: [...settings.disabledOperations] };
    this.revision++;
  }

  currentSettings(): CatalogSettings {
    return this.settings;
  }

  /** Grows with every change of the registry or settings (clients may cache `tools/list` by it). */
  get version(): number {
    return this.revision;
  }

  all(): AnyOperation[] {
    return [...this.operations.values()];
  }

  get(name: string): AnyOperation | undefined {
    return this.operations.get(name);
  }

  /** The operations a viewer may call, in name order. */
  visibleTo(viewer: Viewer): AnyOperation[] {
    return this.all()
      .filter((operation) => this.check(operation, viewer) === undefined)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Undefined when callable; else why not. */
  refusal(name: string, viewer: Viewer): Refusal | undefined {
    const operation = this.operations.get(name);
    return operation ? this.check(operation, viewer) : 'unknown';
  }

  /**
   * The operation `viewer` may call by `name`; else the catalog's answer: 404 `Tool not found:
   * <name>` (unknown or hidden: switched off, a family the subject switched off, another
   * principal's) or 403 `Scope insufficient: ...`. Every road asks this before a call or before
   * reaching the same effect another way (a chat's commands, src/operations/command-gate.ts).
   */
  callable(name: string, viewer: Viewer): AnyOperation {
    const refusal = this.refusal(name, viewer);
    if (refusal === 'unknown' || refusal === 'hidden')
      throw new AppError('RESOURCE_NOT_FOUND', `Tool not found: ${name}`, { envelope: 'standard' });
    const operation = this.operations.get(name)!;
    if (refusal === 'scope') throw AppError.scopeInsufficient(operation.minScope, viewer.scope);
    return operation;
  }

  /**
   * True when the runtime settings switch the operation off for agents and operators (REST
   * and MCP answer 404). The service's own operations (ops and system only) never are.
   */
  switchedOff(operation: AnyOperation): boolean {
    if (operation.principals.every((kind) => kind === 'ops' || kind === 'system')) return false;
    return this.settings.disabledOperations.includes(operation.name) || this.settings.disabledFamilies.includes(operation.family);
  }

  /** Validates the input and runs the handler; visibility is the caller's check (see `refusal`). */
  async invoke(operation: AnyOperation, ctx: CallContext, rawInput: unknown): Promise<unknown> {
    // `return await`: a promise returned as it is from an async function costs two more microtask turns.
    return await operation.handler(boundContext(operation, ctx), parseOperationInput(operation.input, rawInput));
  }

  private check(operation: AnyOperation, viewer: Viewer): Refusal | undefined {
    if (!operation.principals.includes(viewer.kind)) return 'hidden';
    // The runtime switches shape what agents and operators are offered; the service's own
    // operators and jobs keep every operation (switching a family off must not lock the kill switch away).
    if (viewer.kind === 'ops' || viewer.kind === 'system') return scopeCovers(viewer.scope, operation.minScope) ? undefined : 'scope';
    if (this.switchedOff(operation)) return 'hidden';
    if (viewer.disabledFamilies?.includes(operation.family)) return 'hidden';
    if (!scopeCovers(viewer.scope, operation.minScope)) return 'scope';
    return undefined;
  }
}

/**
 * The context as the handler is typed to receive it: an `account` operation always gets its
 * subject (a surface that resolved none is a bug, answered as a missing agent, never a crash).
 */
export function boundContext(operation: AnyOperation, ctx: CallContext): OperationContext {
  if ((operation.target ?? 'account') === 'account' && !ctx.subject) throw AppError.notFound('Agent not found');
  return ctx as OperationContext;
}

/** Parses operation input; failures are 400 validation errors naming the field (see `validationMessages`). */
export function parseOperationInput<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  // No input at all is no fields; `null` is a body that is not an object, refused as such.
  const result = schema.safeParse(raw === undefined ? {} : raw, { reportInput: true });
  if (result.success) return result.data;
  throw AppError.validation(validationMessages(result.error), validationHint(result.error));
}
