/**
 * The order of object keys: by namespace, then name, as PostgreSQL's `ORDER BY
 * namespace, name` returns rows under a code-point collation ("C", as the tests'
 * servers and PGlite use) and as etcd orders kube's keys. The object cache lists in
 * this order; a continue token it hands out is followed by a database page, so it
 * pages only where the database orders keys the same way.
 */
import { sql } from 'kysely';
import type { Database } from './database.js';
import { encodeText } from './stored-text.js';

/**
 * A key's string, whose code-point order is the order of (namespace, name) as stored:
 * U+0000 separates the two, and no stored text holds it (stored-text.ts).
 */
export function orderedKey(namespace: string, name: string): string {
  return `${encodeText(namespace)}\u0000${encodeText(name)}`;
}

/** Where a UTF-16 unit sorts among code points: surrogates (code points above U+FFFF) after U+E000–U+FFFF. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/**
 * Compares two strings by code point, as PostgreSQL's "C" collation compares UTF-8
 * bytes (JavaScript's `<` compares UTF-16 units, which puts U+10000 before U+E000).
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** The collations that order text by code point: libc's C and POSIX (and its C.UTF-8), and the builtin provider's. */
const codePointCollations = new Set(['C', 'POSIX', 'C.UTF-8', 'C.utf8']);

/**
 * Whether the database orders the object table's keys by code point, as
 * {@link compareCodePoints} does: its default collation (the columns declare none)
 * is C, POSIX or C.UTF-8, or comes from the builtin provider, which orders by code
 * point whatever its locale. An ICU or other libc collation orders otherwise.
 */
export async function ordersByCodePoint(database: Database): Promise<boolean> {
  const { rows } = await database.run((db) =>
    sql<{ collate: string; provider: string }>`
      SELECT datcollate AS collate, datlocprovider::text AS provider FROM pg_database WHERE datname = current_database()`.execute(db),
  );
  const row = rows[0];
  if (!row) return false;
  return row.provider === 'b' || (row.provider === 'c' && codePointCollations.has(row.collate));
}
