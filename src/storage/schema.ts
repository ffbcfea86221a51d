/**
 * Kysely's view of Cairn's tables (see migrations/).
 */
import type { ColumnType, Generated } from 'kysely';
import type { Fields } from '../machinery/selectors/field-selector.js';

type Int8 = ColumnType<string, string | bigint | number, string | bigint | number>;
type Json<T> = ColumnType<T, string, string>;
type NullableJson<T> = ColumnType<T | null, string | null, string | null>;

/** String-to-string maps kept beside each object for selection in SQL. */
export type StringMap = Readonly<Record<string, string>>;

/** The selectable fields kept beside each object: strings, and lists for the metadata list fields (metadata-fields.ts). */
export type FieldMap = Fields;

/** One row per live object. */
export interface ObjectsTable {
  resource: string;
  namespace: string;
  name: string;
  uid: string;
  resource_version: Int8;
  /** The apiVersion `object` is encoded in: the storage version when it was written. */
  api_version: string;
  labels: Json<StringMap>;
  fields: Json<FieldMap>;
  /** The object's JSON text as written, escaped as stored-text.ts `encodeJsonb` escapes it. */
  object: string;
}

/** The event log, one row per change, keyed by the resourceVersion it created. */
export interface EventsTable {
  resource_version: Int8;
  resource: string;
  namespace: string;
  name: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  labels: Json<StringMap>;
  fields: Json<FieldMap>;
  prev_labels: NullableJson<StringMap>;
  prev_fields: NullableJson<FieldMap>;
  /** JSON text, as the object table's. */
  object: string;
  /** The object before a MODIFIED or DELETED change; null for ADDED. */
  prev_object: string | null;
  created_at: Generated<Date>;
  /** The uid of the object written (migration 0010). */
  uid: string | null;
  /** The write's origin (interfaces.ts `WriteOrigin`); null for events logged before it was recorded (migration 0010). */
  operation: string | null;
  subresource: string | null;
  field_manager: string | null;
  username: string | null;
}

/** Log lines of the `log` subresource, one row per line, keyed by the object's uid and ordered by `seq`. */
export interface LogLinesTable {
  /** A bigserial: never written by Cairn. */
  seq: ColumnType<string, never, never>;
  uid: string;
  stream: string;
  appended_at: Generated<Date>;
  line: string;
  /** The bytes appended to the log before this line, removed ones included; unique in its log (migrations 0011, 0014). */
  byte_offset: Int8;
}

/** One row per object log, from its first append: where its removed prefix ends (migrations 0008, 0014). */
export interface LogsTable {
  uid: string;
  /** The newest `seq` of the lines removed from its start by its size or age limit; 0 when none was. */
  removed_through: Int8;
  /** The byte offset its first kept line has: the bytes removed from its start; its end when no line is left. */
  removed_bytes: Int8;
}

/** How many objects each resource has in each namespace, kept by triggers on the object table (migration 0005). */
export interface ObjectCountsTable {
  resource: string;
  namespace: string;
  count: Int8;
}

/** The database schema. */
export interface StorageSchema {
  cairn_objects: ObjectsTable;
  cairn_events: EventsTable;
  cairn_log_lines: LogLinesTable;
  cairn_logs: LogsTable;
  cairn_object_counts: ObjectCountsTable;
  cairn_resource_version: { id: number; current: Int8 };
  cairn_compaction: { id: number; compacted: Int8 };
  /** How far compaction has walked the events of each resource kept longer than the log's retention (migration 0009). */
  cairn_history_marks: { resource: string; compacted: Int8 };
  /** Who holds each lease and until when, by the database's clock (migration 0013). */
  cairn_leases: { name: string; holder: string; expires_at: Date };
}
