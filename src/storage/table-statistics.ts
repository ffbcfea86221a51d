/**
 * The planner's statistics where nothing else keeps them. PostgreSQL's autovacuum
 * gathers them when a tenth of a table has changed; embedded PGlite runs PostgreSQL
 * alone, without autovacuum, and without statistics the planner cannot tell a
 * selective selector (read its matches through the GIN index) from an unselective one
 * (walk the primary key to the page's end), nor a short range of the event log from a
 * long one: it scans. So on PGlite Cairn does what autovacuum would, with its threshold.
 */
import type { Database } from './database.js';

/** Whether `now` rows are far enough from the `then` the statistics were gathered at: autovacuum's 10 % + 50, or never gathered. */
const stale = (then: number, now: number): boolean => then < 0 || Math.abs(now - then) > 0.1 * then + 50;

/**
 * How many rows the statistics counted in the object table and the event log, and how
 * many they hold now: the object counts, and the span of the log's resourceVersions
 * (two reads of its primary key; a write that took no resourceVersion leaves no gap to
 * speak of), never a count of the rows.
 */
const sizes = `SELECT
  (SELECT reltuples FROM pg_class WHERE oid = 'cairn_objects'::regclass)::float8 AS objects_then,
  (SELECT coalesce(sum(count), 0) FROM cairn_object_counts)::float8 AS objects_now,
  (SELECT reltuples FROM pg_class WHERE oid = 'cairn_events'::regclass)::float8 AS events_then,
  (SELECT coalesce(max(resource_version) - min(resource_version) + 1, 0) FROM cairn_events)::float8 AS events_now`;

/**
 * On a backend without autovacuum (PGlite), gathers the statistics of the object table
 * and the event log when either has grown or shrunk by a tenth since they were last
 * gathered (or never were); true when it did. Elsewhere it does nothing: autovacuum does.
 */
export async function refreshStatistics(database: Database): Promise<boolean> {
  if (database.backend !== 'pglite') return false;
  const [row] = await database.query(sizes, []);
  const n = (column: string): number => Number(row[column]);
  if (!stale(n('objects_then'), n('objects_now')) && !stale(n('events_then'), n('events_now'))) return false;
  await database.query('ANALYZE cairn_objects, cairn_events', []);
  return true;
}
