/**
 * How many objects each resource holds, for `apiserver_storage_objects`: one grouped
 * count over the object rows, as kube counts the keys under each resource's prefix.
 */
import type { Database } from './database.js';

/** Object counts by resource (`pipelines.cairn.dev`). */
export async function countObjects(database: Database): Promise<ReadonlyMap<string, number>> {
  const rows = await database.run((db) =>
    db
      .selectFrom('cairn_objects')
      .select(['resource', (eb) => eb.fn.countAll<string>().as('count')])
      .groupBy('resource')
      .execute(),
  );
  return new Map(rows.map((row) => [row.resource, Number(row.count)]));
}
