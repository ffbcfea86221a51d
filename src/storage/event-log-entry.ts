/**
 * One row of the event log, as the watch cache holds it.
 */
import type { StoredObject } from '../machinery/meta/object.js';
import type { StringMap } from './schema.js';

/** An event log entry; frozen once read. */
export interface EventLogEntry {
  readonly rv: bigint;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly labels: StringMap;
  readonly fields: StringMap;
  readonly prevLabels: StringMap | null;
  readonly prevFields: StringMap | null;
  readonly object: StoredObject;
}
