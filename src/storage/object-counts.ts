/**
 * How many objects each resource holds, for `apiserver_storage_objects`: the counts the
 * database keeps per resource and namespace (migration 0005), summed, as kube counts the
 * keys under each resource's prefix, without reading the objects' rows.
 */
import { sql } from 'kysely';
import type { Database } from './database.js';

/** Object counts by resource (`pipelines.cairn.dev`). */
export async function countObjects(database: Database): Promise<ReadonlyMap<string, number>> {
  const rows = await database.run((db) =>
    db
      .selectFrom('cairn_object_counts')
      .select(['resource', sql<string>`sum(count)`.as('count')])
      .groupBy('resource')
      .execute(),
  );
  return new Map(rows.map((row) => [row.resource, Number(row.count)]));
}
