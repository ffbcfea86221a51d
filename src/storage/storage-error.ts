/**
 * Typed storage errors. Storage speaks keys and resourceVersions; the registry
 * translates these into API Status errors, once.
 */

/** What went wrong, in storage terms. */
export type StorageErrorCode = 'KeyNotFound' | 'KeyExists' | 'Conflict' | 'TooOld' | 'TooLarge' | 'Unavailable';

/** An error from the storage layer. */
export class StorageError extends Error {
  readonly code: StorageErrorCode;

  constructor(code: StorageErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StorageError';
    this.code = code;
  }
}

/** The key does not exist. */
export const keyNotFound = (key: string) => new StorageError('KeyNotFound', `key not found: ${key}`);
/** The key exists already. */
export const keyExists = (key: string) => new StorageError('KeyExists', `key exists: ${key}`);
/** A precondition on the current object failed. */
export const conflict = (message: string) => new StorageError('Conflict', message);
/** A resourceVersion older than the retained event history. */
export const tooOld = (requested: string, compacted: string) => new StorageError('TooOld', `too old resource version: ${requested} (${compacted})`);

/** A resourceVersion newer than the newest commit. */
export const tooLarge = (requested: string, current: string) => new StorageError('TooLarge', `Too large resource version: ${requested}, current: ${current}`);

const connectionErrorCodes = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);

/**
 * Tells whether an error means the database cannot be reached (as opposed to a
 * query that failed): connection exceptions (SQLSTATE class 08), shutdowns (57P0x),
 * socket errors and pg's own "Connection terminated". A read-only session's refusal
 * (25006) is not one: its outcome is known, see `isReadOnlyError`.
 */
export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (connectionErrorCodes.has(code) || code.startsWith('08') || /^57P0[1-3]$/.test(code)) return true;
  }
  if (/Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i.test(error.message)) {
    return true;
  }
  const cause = (error as { cause?: unknown }).cause;
  if (cause && cause !== error) return isConnectionError(cause);
  if (error instanceof AggregateError) return error.errors.some(isConnectionError);
  return false;
}

/**
 * Tells whether the server refused a write because it is read-only (SQLSTATE 25006): a
 * standby, or a primary being demoted, reached before the proxy in front noticed. Unlike
 * a lost connection the outcome is known: nothing was written.
 */
export function isReadOnlyError(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === '25006';
}

/** Wraps connection errors and a read-only server's refusal as `Unavailable` (clients retry); everything else passes through. */
export function classifyDatabaseError(error: unknown): unknown {
  if (error instanceof StorageError) return error;
  if (isConnectionError(error)) {
    return new StorageError('Unavailable', 'the database is unavailable', { cause: error });
  }
  if (isReadOnlyError(error)) {
    return new StorageError('Unavailable', 'the database is read-only (a standby, or a primary being demoted)', { cause: error });
  }
  return error;
}
