/**
 * Label and field selectors as PostgreSQL conditions, so a LIST read from the database
 * filters there, through the indexes on the `labels` and `fields` columns, rather than in
 * memory.
 */
import { sql, type RawBuilder } from 'kysely';
import { listFields } from '../machinery/meta/metadata-fields.js';
import type { FieldRequirement, FieldSelector } from '../machinery/selectors/field-selector.js';
import { parseInt64, type LabelRequirement, type LabelSelector } from '../machinery/selectors/label-selector.js';
import { encodeJsonb, encodeText } from './stored-text.js';

/**
 * A PostgreSQL condition equivalent to `matchesLabels(selector, row.labels)`, for a `jsonb`
 * column holding a string→string object (`{}` when there are no labels). Every value is a
 * bound parameter. Each requirement is written with the operators a GIN index on the
 * column (`jsonb_ops`, migration 0005) serves: `@>` for equality, `?` for existence.
 *
 * @example
 * db.selectFrom('objects').selectAll().where(labelSelectorSql(parseLabelSelector('app=web')))
 */
export function labelSelectorSql(selector: LabelSelector, column = 'labels'): RawBuilder<boolean> {
  const col = sql.ref(column);
  return conjunction(selector.map((r) => labelRequirementSql(r, col)));
}

/**
 * A PostgreSQL condition equivalent to `matchesFields(selector, row.fields)`, for a `jsonb`
 * column mapping selectable field paths to strings. An absent field compares as `''`.
 * With `namespaceColumn`, `metadata.namespace` is compared with that column, the key's,
 * which the primary key indexes (every namespaced kind selects on it, as kube's generic
 * store does, and it holds what that field holds); other fields are compared with `@>`,
 * which a GIN index on the column (`jsonb_path_ops`, migration 0005) serves; a list field
 * (metadata-fields.ts) is compared with `@> '{"field":["value"]}'`, served by the same
 * index, and `metadata.ownerReferences.uid!=` with `?`, which migration 0006's partial
 * index serves.
 *
 * @example
 * db.selectFrom('objects').selectAll().where(fieldSelectorSql(parseFieldSelector('metadata.name!=x')))
 */
export function fieldSelectorSql(selector: FieldSelector, column = 'fields', namespaceColumn?: string): RawBuilder<boolean> {
  const col = sql.ref(column);
  return conjunction(
    selector.map((r) =>
      namespaceColumn !== undefined && r.field === 'metadata.namespace' ? keyRequirementSql(r, sql.ref(namespaceColumn)) : fieldRequirementSql(r, col),
    ),
  );
}

/** AND of the parts; `true` for none, the empty selector. */
function conjunction(parts: readonly RawBuilder<boolean>[]): RawBuilder<boolean> {
  if (parts.length === 0) return sql<boolean>`true`;
  return sql<boolean>`(${sql.join(parts, sql` AND `)})`;
}

/** `col @> '{"key":"value"}'`: true exactly when the key is present with that string value. */
function contains(col: RawBuilder<unknown>, key: string, value: string | readonly string[]): RawBuilder<boolean> {
  return sql<boolean>`(${col} @> ${encodeJsonb({ [key]: value })}::jsonb)`;
}

function labelRequirementSql({ key, operator, values }: LabelRequirement, col: RawBuilder<unknown>): RawBuilder<boolean> {
  const value = sql`(${col} ->> ${key}::text)`;
  const anyOf = (): RawBuilder<boolean> =>
    sql<boolean>`(${sql.join(
      values.map((v) => contains(col, key, v)),
      sql` OR `,
    )})`;
  switch (operator) {
    case '=':
    case '==':
    case 'in':
      return anyOf();
    case '!=':
    case 'notin':
      return sql<boolean>`(NOT ${anyOf()})`;
    case 'exists':
      return sql<boolean>`(${col} ? ${key}::text)`;
    case '!':
      return sql<boolean>`(NOT ${col} ? ${key}::text)`;
    case 'gt':
    case 'lt': {
      const bound = parseInt64(values[0] ?? '');
      if (bound === undefined) return sql<boolean>`false`;
      const cmp = operator === 'gt' ? sql`>` : sql`<`;
      // Go's strconv.ParseInt: optional sign, decimal digits, within int64; anything else never matches
      return sql<boolean>`(CASE WHEN ${value} ~ '^[+-]?[0-9]+$' THEN ${value}::numeric BETWEEN -9223372036854775808 AND 9223372036854775807 AND ${value}::numeric ${cmp} ${bound.toString()}::numeric ELSE false END)`;
    }
  }
}

function fieldRequirementSql({ field, operator, value }: FieldRequirement, col: RawBuilder<unknown>): RawBuilder<boolean> {
  if (field.includes('\0') || value.includes('\0')) {
    // PostgreSQL text cannot hold NUL (binding one is an error), so no stored field has such a name or value
    const equal = field.includes('\0') ? value === '' : false;
    return (operator === '=') === equal ? sql<boolean>`true` : sql<boolean>`false`;
  }
  if (listFields.has(field)) {
    // A list field is stored only when its list is not empty, so `= ''` is its absence.
    // The name is a constant of ours, written as a literal so the partial index's predicate is seen to hold.
    const present = sql<boolean>`(${col} ? ${sql.lit(field)})`;
    if (value === '') return operator === '=' ? sql<boolean>`(NOT ${present})` : present;
    return operator === '=' ? contains(col, field, [value]) : sql<boolean>`(NOT ${contains(col, field, [value])})`;
  }
  if (value !== '') {
    // an absent field is '' and so never equals a non-empty value: containment says the same, indexably
    return operator === '=' ? contains(col, field, value) : sql<boolean>`(NOT ${contains(col, field, value)})`;
  }
  const actual = sql`coalesce(${col} ->> ${field}::text, '')`;
  return operator === '=' ? sql<boolean>`(${actual} = '')` : sql<boolean>`(${actual} <> '')`;
}

/** A requirement on a key column (stored text, never NUL: stored-text.ts). */
function keyRequirementSql({ operator, value }: FieldRequirement, col: RawBuilder<unknown>): RawBuilder<boolean> {
  // No key holds NUL, so a value with one equals none, as in fieldRequirementSql.
  if (value.includes('\0')) return operator === '=' ? sql<boolean>`false` : sql<boolean>`true`;
  return operator === '=' ? sql<boolean>`(${col} = ${encodeText(value)})` : sql<boolean>`(${col} <> ${encodeText(value)})`;
}
