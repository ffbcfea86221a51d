/**
 * Catching the StatusError a synchronous call throws, for assertions on its Status.
 */
import { StatusError } from '../../src/machinery/status.js';

/** The StatusError `run` throws; fails when it throws something else or nothing. */
export function statusErrorOf(run: () => unknown): StatusError {
  try {
    run();
  } catch (error) {
    if (error instanceof StatusError) return error;
    throw error;
  }
  throw new Error('expected a StatusError');
}

/** The Status body kube-apiserver writes for a failure, for `toEqual` on a whole answer; `details` only when given. */
export function failureStatus(code: number, reason: string, message: string, details?: object): object {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason, ...(details ? { details } : {}), code };
}
