/**
 * Writes objects straight into the tables, as a server of an older release did when
 * its storage version was another: the row, recording the version it is encoded in,
 * and its ADDED event, at the next resourceVersion.
 */
import { sql } from 'kysely';
import type { KubeObject, StoredObject } from '../../src/machinery/meta/object.js';
import type { Database } from '../../src/storage/database.js';

/** What an older server knew of the object besides itself. */
export interface OlderRowExtras {
  readonly labels?: Record<string, string>;
  /** Its selectable fields, as that server computed them. */
  readonly fields?: Record<string, string>;
}

/** Stores `object` of `resource` as it is, in its own apiVersion; returns it as stored. */
export async function writeOlderRow(database: Database, resource: string, object: KubeObject, extras: OlderRowExtras = {}): Promise<StoredObject> {
  return database.transaction(async (trx) => {
    const { rows } = await sql<{ current: string }>`UPDATE cairn_resource_version SET current = current + 1 RETURNING current::text AS current`.execute(trx);
    const rv = rows[0].current;
    const stored = { ...object, metadata: { ...object.metadata, resourceVersion: rv } } as StoredObject;
    const namespace = stored.metadata.namespace ?? '';
    const labels = JSON.stringify(extras.labels ?? {});
    const fields = JSON.stringify(extras.fields ?? {});
    await sql`
      INSERT INTO cairn_objects (resource, namespace, name, uid, resource_version, api_version, labels, fields, object)
      VALUES (${resource}, ${namespace}, ${stored.metadata.name}, ${stored.metadata.uid}, ${rv}, ${stored.apiVersion}, ${labels}, ${fields}, ${JSON.stringify(stored)})`.execute(
      trx,
    );
    await sql`
      INSERT INTO cairn_events (resource_version, resource, namespace, name, type, labels, fields, object)
      VALUES (${rv}, ${resource}, ${namespace}, ${stored.metadata.name}, 'ADDED', ${labels}, ${fields}, ${JSON.stringify(stored)})`.execute(trx);
    return stored;
  });
}

/** The apiVersion a row records, and the apiVersion of the object in it. */
export async function rowVersions(database: Database, resource: string, namespace: string, name: string): Promise<{ row: string; object: string }> {
  const { rows } = await database.run((db) =>
    sql<{ row: string; object: string }>`
      SELECT api_version AS row, object::jsonb->>'apiVersion' AS object FROM cairn_objects
      WHERE resource = ${resource} AND namespace = ${namespace} AND name = ${name}`.execute(db),
  );
  return rows[0];
}
