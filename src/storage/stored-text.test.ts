// What PostgreSQL cannot store as is (U+0000 in jsonb and text): every JSON value and string round-trips, and text without it is left unchanged for selectors.
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeJsonb, decodeJsonbText, decodeText, encodeJsonb, encodeText, jsonbOid } from './stored-text.js';

// The characters that matter to the escaping, and a few that do not.
const tricky = fc.string({ unit: fc.constantFrom('\u0000', '\u0001', '\\', 'u', '0', '1', 'a', '"', '\n', 'é'), maxLength: 12 });

describe('stored text', () => {
  const pglite = new PGlite({ parsers: { [jsonbOid]: decodeJsonb } });
  afterAll(() => pglite.close());

  it('round-trips any JSON value through a jsonb column, U+0000 included', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3, stringUnit: fc.constantFrom('\u0000', '\u0001', '\\', 'u', '0', '1', 'a', '"') }), async (value) => {
        const { rows } = await pglite.query<{ j: unknown }>('SELECT $1::jsonb AS j', [encodeJsonb(value)]);
        expect(rows[0].j).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('gives back the JSON text of any value read as jsonb text, without parsing it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue({ maxDepth: 3, stringUnit: fc.constantFrom('\u0000', '\u0001', '\\', 'u', '0', '1', 'a', '"') }), async (value) => {
        const { rows } = await pglite.query<{ t: string }>('SELECT $1::jsonb::text AS t', [encodeJsonb(value)]);
        expect(JSON.parse(decodeJsonbText(rows[0].t))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('round-trips any string through a text column', async () => {
    await fc.assert(
      fc.asyncProperty(tricky, async (value) => {
        const { rows } = await pglite.query<{ t: string }>('SELECT $1::text AS t', [encodeText(value)]);
        expect(decodeText(rows[0].t)).toBe(value);
      }),
      { numRuns: 300 },
    );
  });

  it('leaves strings without U+0000 or U+0001 unchanged, so selectors see them as they are', () => {
    expect(encodeText('standard')).toBe('standard');
    expect(encodeJsonb({ a: 'b\\u0000' })).toBe(JSON.stringify({ a: 'b\\u0000' }));
    expect(encodeJsonb({ a: 'b\u0000' })).toBe('{"a":"b\\u00010"}');
  });
});
