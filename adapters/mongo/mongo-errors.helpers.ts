import {
  MongoClientClosedError,
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoOperationTimeoutError,
  MongoServerClosedError,
  MongoServerSelectionError,
  MongoStalePrimaryError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
} from 'mongodb';
import { AppError, isAppError } from '../../kernel/errors/app-error.js';

/** Server codes that mean "the cluster cannot serve this now" (elections, shutdown, network). */
const TRANSIENT_SERVER_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  50, // MaxTimeMSExpired
  64, // WriteConcernFailed
  89, // NetworkTimeout
  91, // ShutdownInProgress
  133, // FailedToSatisfyReadPreference
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  10058, // LegacyNotPrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Labels the driver puts on errors a later attempt may not hit. */
const TRANSIENT_LABELS = ['RetryableWriteError', 'RetryableError', 'SystemOverloadedError', 'ResetPool'];

/** E11000: a unique index refused the write; the store turns it into VERSION_CONFLICT. */
export function isDuplicateKey(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 11000;
}

function isTransient(error: unknown): boolean {
  if (
    error instanceof MongoNetworkError ||
    error instanceof MongoServerSelectionError ||
    error instanceof MongoOperationTimeoutError ||
    error instanceof MongoStalePrimaryError ||
    error instanceof MongoWriteConcernError ||
    // Closed or never-connected client: the store is not there to serve.
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoServerClosedError ||
    error instanceof MongoClientClosedError
  ) {
    return true;
  }
  if (error instanceof MongoError) {
    if (typeof error.code === 'number' && TRANSIENT_SERVER_CODES.has(error.code)) return true;
    return TRANSIENT_LABELS.some((label) => error.hasErrorLabel(label));
  }
  return false;
}

/**
 * Translates whatever a driver call threw into the service's taxonomy, so no driver
 * type or message crosses the port: an outage is a retryable DEPENDENCY_UNAVAILABLE,
 * anything else an internal error (the driver error stays only as `cause`, for logs).
 */
export function translateMongoError(error: unknown, operation: string): AppError {
  if (isAppError(error)) return error;
  if (isTransient(error)) {
    return new AppError('DEPENDENCY_UNAVAILABLE', `The document store is unavailable (${operation})`, {
      retryable: true,
      cause: error,
    });
  }
  return AppError.internal(`The document store failed (${operation})`, error);
}

/** Runs one driver call and translates its failure. */
export async function guarded<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw translateMongoError(error, operation);
  }
}
