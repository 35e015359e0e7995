import { AppError } from '../../kernel/errors/app-error.js';
import type { MachineDefinition, PersistedSnapshotLike } from '../../machines/machine-definition.types.js';

/** What the runtime stores per actor: the XState persisted snapshot and its machine version. */
export interface ActorDocument {
  machineVersion: number;
  snapshot: PersistedSnapshotLike;
}

/** A structural check of what the runtime itself wrote (hot path: no schema library). */
function isActorDocument(raw: unknown): raw is ActorDocument {
  if (!raw || typeof raw !== 'object') return false;
  const { machineVersion, snapshot } = raw as Partial<ActorDocument>;
  return (
    Number.isInteger(machineVersion) &&
    (machineVersion as number) > 0 &&
    !!snapshot &&
    typeof snapshot === 'object' &&
    'value' in snapshot &&
    typeof snapshot.status === 'string' &&
    !!snapshot.context &&
    typeof snapshot.context === 'object'
  );
}

/**
 * Reads a stored actor document for the current machine version: validates its shape,
 * runs the migration chain for older versions, and refuses what it cannot read
 * (a newer version, a gap in the chain) with a clear error instead of mis-reading it.
 */
export function decodeActorDocument(definition: MachineDefinition, id: string, raw: unknown): PersistedSnapshotLike {
  const where = `${definition.type}/${id}`;
  if (!isActorDocument(raw)) {
    throw new AppError('SNAPSHOT_VERSION_UNSUPPORTED', `Stored snapshot of ${where} is malformed`, { envelope: 'standard' });
  }
  let { machineVersion, snapshot } = raw;
  if (machineVersion > definition.version) {
    throw new AppError(
      'SNAPSHOT_VERSION_UNSUPPORTED',
      `Snapshot of ${where} was written by machine version ${machineVersion}; this build reads up to ${definition.version}`,
      { envelope: 'standard' },
    );
  }
  while (machineVersion < definition.version) {
    const migrate = definition.migrations?.[machineVersion];
    if (!migrate) {
      throw new AppError(
        'SNAPSHOT_VERSION_UNSUPPORTED',
        `Snapshot of ${where} has machine version ${machineVersion}; this build reads version ${definition.version} and has no migration from ${machineVersion}`,
        { envelope: 'standard' },
      );
    }
    snapshot = migrate(snapshot);
    machineVersion++;
  }
  return snapshot;
}

export function encodeActorDocument(definition: MachineDefinition, snapshot: unknown): ActorDocument {
  return { machineVersion: definition.version, snapshot: snapshot as PersistedSnapshotLike };
}

/** The top-level state name used by the `state` index (`"active"`, `"paused"`...). */
export function topLevelState(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') return Object.keys(value)[0] ?? 'unknown';
  return 'unknown';
}
