// Label and field selectors as SQL: parameters bound, the operators a GIN index serves, and what PostgreSQL selects equal to what the matcher matches.
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { Kysely, PGliteDialect, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { matchesFields, parseFieldSelector, type FieldRequirement, type FieldSelector, type Fields } from '../machinery/selectors/field-selector.js';
import { matchesLabels, parseLabelSelector, type LabelRequirement, type LabelSelector, type Labels } from '../machinery/selectors/label-selector.js';
import { fieldSelectorSql, labelSelectorSql } from './selector-sql.js';

interface Row {
  readonly id: number;
  readonly labels: Labels;
  readonly fields: Fields;
}

const rows: readonly Row[] = [
  { id: 1, labels: {}, fields: {} },
  { id: 2, labels: { app: 'web' }, fields: { 'metadata.name': 'a', 'metadata.namespace': 'default' } },
  { id: 3, labels: { app: 'db', tier: 'backend' }, fields: { 'metadata.name': 'b', 'metadata.namespace': 'kube-system' } },
  { id: 4, labels: { app: '', tier: 'frontend' }, fields: { 'metadata.name': '', 'spec.runnerClassName': 'std' } },
  { id: 5, labels: { 'example.com/team': 'x', n: '2' }, fields: { 'metadata.name': 'a,b=c\\d', 'spec.runnerClassName': "o'neil" } },
  { id: 6, labels: { n: '10', app: 'web' }, fields: { 'metadata.name': 'ünï', 'metadata.namespace': 'default' } },
  { id: 7, labels: { n: '+3' }, fields: { 'spec.runnerClassName': '' } },
  { id: 8, labels: { n: 'v2' }, fields: { 'metadata.namespace': 'default' } },
  // List fields (metadata-fields.ts): every kind's owners and finalizers.
  { id: 9, labels: { n: '9223372036854775808' }, fields: { 'metadata.ownerReferences.uid': ['u1', 'u2'] } },
  { id: 10, labels: { n: '-9223372036854775808' }, fields: { 'metadata.ownerReferences.uid': ['u2'], 'metadata.finalizers': ['orphan'] } },
  { id: 11, labels: { n: '1.5' }, fields: { 'metadata.finalizers': ['foregroundDeletion', 'example.com/x'] } },
  { id: 12, labels: { n: '' }, fields: {} },
  { id: 13, labels: { n: '007', tier: 'backend' }, fields: {} },
];

let pglite: PGlite;
let db: Kysely<any>;

beforeAll(async () => {
  pglite = new PGlite();
  db = new Kysely<any>({ dialect: new PGliteDialect({ pglite }) });
  await db.schema
    .createTable('t')
    .addColumn('id', 'integer', (c) => c.primaryKey())
    .addColumn('labels', 'jsonb', (c) => c.notNull())
    .addColumn('fields', 'jsonb', (c) => c.notNull())
    // What a key column holds: the namespace field's value, '' for none (a cluster-scoped object).
    .addColumn('namespace', 'text', (c) => c.notNull())
    .execute();
  await db
    .insertInto('t')
    .values(
      rows.map((r) => ({ id: r.id, labels: JSON.stringify(r.labels), fields: JSON.stringify(r.fields), namespace: r.fields['metadata.namespace'] ?? '' })),
    )
    .execute();
});

afterAll(async () => {
  await db.destroy();
});

/** Ids of the rows the SQL condition selects. */
async function selectIds(condition: RawBuilder<boolean>): Promise<number[]> {
  const result = await db.selectFrom('t').select('id').where(condition).orderBy('id').execute();
  return result.map((r) => r.id as number);
}

const labelIds = (s: LabelSelector): number[] => rows.filter((r) => matchesLabels(s, r.labels)).map((r) => r.id);
const fieldIds = (s: FieldSelector): number[] => rows.filter((r) => matchesFields(s, r.fields)).map((r) => r.id);

describe('labelSelectorSql selects the rows matchesLabels accepts', () => {
  it.each<[string, readonly number[]]>([
    ['', rows.map((r) => r.id)],
    ['app=web', [2, 6]],
    ['app==web', [2, 6]],
    ['app!=web', [1, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13]],
    ['app=', [4]],
    ['app!=', [1, 2, 3, 5, 6, 7, 8, 9, 10, 11, 12, 13]],
    ['app in (web,db)', [2, 3, 6]],
    ['app in (,db)', [3, 4]],
    ['app notin (web,db)', [1, 4, 5, 7, 8, 9, 10, 11, 12, 13]],
    ['app', [2, 3, 4, 6]],
    ['!app', [1, 5, 7, 8, 9, 10, 11, 12, 13]],
    ['app,!tier', [2, 6]],
    ['example.com/team=x', [5]],
    ['n>2', [6, 7, 13]],
    ['n<3', [5, 10]],
    ['n>9', [6]],
    ['n>0,tier', [13]],
    ['tier in (backend),app!=db', [13]],
  ])('%j', async (text, expected) => {
    const selector = parseLabelSelector(text);
    expect(labelIds(selector)).toEqual(expected);
    expect(await selectIds(labelSelectorSql(selector))).toEqual(expected);
  });

  it('treats an out-of-range bound as matching nothing, like the matcher', async () => {
    const selector: LabelSelector = [{ key: 'n', operator: 'gt', values: ['99999999999999999999'] }];
    expect(labelIds(selector)).toEqual([]);
    expect(await selectIds(labelSelectorSql(selector))).toEqual([]);
  });

  it('accepts another column name', async () => {
    const renamed = labelSelectorSql(parseLabelSelector('metadata.name=a'), 't.fields');
    expect(await selectIds(renamed)).toEqual([2]);
  });
});

describe('fieldSelectorSql selects the rows matchesFields accepts', () => {
  it.each<[string, readonly number[]]>([
    ['', rows.map((r) => r.id)],
    ['metadata.name=a', [2]],
    ['metadata.name==a', [2]],
    ['metadata.name!=a', [1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]],
    ['metadata.name=', [1, 4, 7, 8, 9, 10, 11, 12, 13]],
    ['metadata.name!=', [2, 3, 5, 6]],
    ['metadata.name=a\\,b\\=c\\\\d', [5]],
    ['metadata.name=ünï', [6]],
    ["spec.runnerClassName=o'neil", [5]],
    ['spec.runnerClassName!=std,metadata.namespace=default', [2, 6, 8]],
    ['spec.runnerClassName=', [1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13]],
    ['metadata.ownerReferences.uid=u1', [9]],
    ['metadata.ownerReferences.uid=u2', [9, 10]],
    ['metadata.ownerReferences.uid=u3', []],
    ['metadata.ownerReferences.uid!=u2', [1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13]],
    ['metadata.ownerReferences.uid=u2,metadata.ownerReferences.uid!=u1', [10]],
    ['metadata.ownerReferences.uid!=', [9, 10]],
    ['metadata.ownerReferences.uid=', [1, 2, 3, 4, 5, 6, 7, 8, 11, 12, 13]],
    ['metadata.finalizers=orphan', [10]],
    ['metadata.finalizers=foregroundDeletion', [11]],
    ['metadata.finalizers=orphan,metadata.ownerReferences.uid=u2', [10]],
  ])('%j', async (text, expected) => {
    const selector = parseFieldSelector(text);
    expect(fieldIds(selector)).toEqual(expected);
    expect(await selectIds(fieldSelectorSql(selector))).toEqual(expected);
  });
});

describe('fieldSelectorSql with NUL, which PostgreSQL text cannot hold', () => {
  it.each<[FieldRequirement]>([
    [{ field: 'metadata.name', operator: '=', value: 'a\0' }],
    [{ field: 'metadata.name', operator: '!=', value: 'a\0' }],
    [{ field: 'meta\0', operator: '=', value: '' }],
    [{ field: 'meta\0', operator: '!=', value: '' }],
    [{ field: 'meta\0', operator: '=', value: 'a' }],
    [{ field: 'meta\0', operator: '!=', value: 'a' }],
  ])('%j selects what the matcher accepts instead of failing', async (requirement) => {
    expect(await selectIds(fieldSelectorSql([requirement]))).toEqual(fieldIds([requirement]));
  });
});

describe('generated SQL', () => {
  it('binds every key and value as a parameter', () => {
    const hostile = "x'); DROP TABLE t; --";
    const compiled = db
      .selectFrom('t')
      .select('id')
      .where(fieldSelectorSql([{ field: hostile, operator: '!=', value: hostile }]))
      .where(labelSelectorSql(parseLabelSelector('a in (b,c),d')))
      .compile();
    expect(compiled.sql).not.toContain('DROP');
    expect(compiled.sql).not.toMatch(/"b"|'b'|"d"|'d'/);
    expect(compiled.parameters.join(' ')).toContain('DROP');
  });

  it('uses the operators a GIN index serves: @> for values, ? for keys', () => {
    const compiled = db
      .selectFrom('t')
      .select('id')
      .where(labelSelectorSql(parseLabelSelector('a=b,c in (d,e),f,!g,h!=i')))
      .compile();
    expect(compiled.sql.match(/@>/g)).toHaveLength(4);
    expect(compiled.sql.match(/ \? /g)).toHaveLength(2);
    expect(compiled.sql).not.toContain('->>');
  });
});

// Keys, values and fields drawn from the rows' vocabulary so that generated selectors both hit and miss.
const labelKey = fc.constantFrom('app', 'tier', 'n', 'example.com/team', 'absent');
const labelValue = fc.constantFrom('', 'web', 'db', 'backend', 'x', '2', '10', '007', '+3', 'v2');
const intValue = fc.constantFrom('0', '1', '2', '3', '7', '10', '9223372036854775807');
const labelRequirement: fc.Arbitrary<LabelRequirement> = fc.oneof(
  fc.record({ key: labelKey, operator: fc.constantFrom('=' as const, '==' as const, '!=' as const), values: labelValue.map((v) => [v]) }),
  fc.record({ key: labelKey, operator: fc.constantFrom('in' as const, 'notin' as const), values: fc.uniqueArray(labelValue, { minLength: 1, maxLength: 3 }) }),
  fc.record({ key: labelKey, operator: fc.constantFrom('exists' as const, '!' as const), values: fc.constant([]) }),
  fc.record({ key: labelKey, operator: fc.constantFrom('gt' as const, 'lt' as const), values: intValue.map((v) => [v]) }),
);
const fieldName = fc.constantFrom('metadata.name', 'metadata.namespace', 'spec.runnerClassName', 'absent');
const fieldValue = fc.constantFrom('', 'a', 'b', 'default', 'std', "o'neil", 'a,b=c\\d', 'ünï');
const fieldRequirement: fc.Arbitrary<FieldRequirement> = fc.record({
  field: fieldName,
  operator: fc.constantFrom('=' as const, '!=' as const),
  value: fieldValue,
});

describe('SQL and in-memory matching agree on generated selectors', () => {
  it('for label selectors', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(labelRequirement, { maxLength: 3 }), async (selector) => {
        expect(await selectIds(labelSelectorSql(selector))).toEqual(labelIds(selector));
      }),
    );
  });

  it('for field selectors', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fieldRequirement, { maxLength: 3 }), async (selector) => {
        expect(await selectIds(fieldSelectorSql(selector))).toEqual(fieldIds(selector));
      }),
    );
  });

  it('for field selectors reading the namespace from the key’s column', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fieldRequirement, { maxLength: 3 }), async (selector) => {
        expect(await selectIds(fieldSelectorSql(selector, 'fields', 'namespace'))).toEqual(fieldIds(selector));
      }),
    );
  });
});
