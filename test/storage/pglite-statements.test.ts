/**
 * Named statements on PGlite: prepared once and run again by name, their rows parsed as
 * an unnamed query's (jsonb as stored text decodes it, int8, null), their parameters
 * serialized by type, and a failure reported with its SQLSTATE, the statement still
 * usable after it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';

const statement = `SELECT $1::jsonb AS doc, $2::bigint * 2 AS twice, $3::text AS nothing, 1 / $4::int AS quotient`;

describe('named statements on PGlite', () => {
  let database: PGliteDatabase;
  beforeAll(async () => {
    database = await PGliteDatabase.open();
  });
  afterAll(async () => {
    await database?.close();
  });

  it('parses rows as an unnamed query does, and prepares the statement once', async () => {
    // U+0000 as stored text holds it (stored-text.ts), which the jsonb parser decodes.
    const values = ['{"a":[1,"\\u00010"]}', 21, null, 1];
    const unnamed = await database.query(statement, values);
    expect(unnamed).toEqual([{ doc: { a: [1, '\u0000'] }, twice: 42, nothing: null, quotient: 1 }]);
    expect(await database.query(statement, values, 'test-statement')).toEqual(unnamed);
    expect(await database.query(statement, ['{}', 5n, 'x', 1], 'test-statement')).toEqual([{ doc: {}, twice: 10, nothing: 'x', quotient: 1 }]);
    const [prepared] = await database.query(
      `SELECT count(*)::int AS count, sum(generic_plans + custom_plans)::int AS runs FROM pg_prepared_statements WHERE name = 'test-statement'`,
      [],
    );
    expect(prepared).toEqual({ count: 1, runs: 2 });
  });

  it('fails with the error’s SQLSTATE, and runs again after', async () => {
    await expect(database.query(statement, ['{}', 1, null, 0], 'test-statement')).rejects.toMatchObject({ code: '22012' });
    expect(await database.query(statement, ['[]', 1, null, 1], 'test-statement')).toHaveLength(1);
  });
});
