/**
 * One row of the event log, as the watch cache holds it.
 */
import type { StoredObject } from '../machinery/meta/object.js';
import type { FieldMap, StringMap } from './schema.js';

/** An event log entry; frozen once read. */
export interface EventLogEntry {
  readonly rv: bigint;
  readonly resource: string;
  readonly namespace: string;
  readonly name: string;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly labels: StringMap;
  readonly fields: FieldMap;
  readonly prevLabels: StringMap | null;
  readonly prevFields: FieldMap | null;
  readonly object: StoredObject;
  /**
   * The object before a MODIFIED change of its labels or selectable fields, the only
   * changes that take it out of a watch's selection: that watch is sent this state as
   * DELETED, as kube's cacher sends it. Null for every other event.
   */
  readonly prevObject: StoredObject | null;
}
