/**
 * A create or an update answers with the JSON text it stored (object-text.ts `writtenObject`): the
 * response must be exactly what stringifying the created object would give, stamped with
 * the resourceVersion the write took, whatever its strings hold, including text the
 * column stores escaped (U+0000 and U+0001).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encode } from '../../src/http/response/negotiation.js';
import type { ResourceStorage } from '../../src/storage/interfaces.js';
import { fieldsOf, key, object, type StorageBackend } from './conformance-support.js';
import { openPGliteStorage } from './sql-backends.js';

describe('the object a write returns', () => {
  let backend: StorageBackend;
  let things: ResourceStorage;

  beforeAll(async () => {
    backend = await openPGliteStorage({ objectCacheSize: 0 });
    things = backend.store.forResource('things.test', fieldsOf);
  });

  afterAll(async () => {
    await backend?.close();
  });

  const strings = [
    'plain',
    'quote " and \\ backslash',
    'nul \u0000 here',
    'soh \u0001 here',
    'stx \u0002rv0\u0002',
    'tab\tand\nnewline',
    'é ✓ 𝄞',
    '\\u0000 literally',
  ];

  it('is frozen, at its resourceVersion, and encodes as JSON.stringify does', async () => {
    for (const [i, s] of strings.entries()) {
      const created = await things.create(key(`w-${i}`), object(`w-${i}`, { spec: { s, list: [s, { s }] } }));
      expect(Object.isFrozen(created) && Object.isFrozen(created.metadata)).toBe(true);
      expect(created.metadata.resourceVersion).toMatch(/^[1-9]\d*$/);
      // Shared (frozen) objects are encoded through the kept encoding: the text stored, unless the column escaped it.
      const { body } = encode(created, 'json', true);
      expect(body, JSON.stringify(s)).toBe(JSON.stringify(created));
      expect((JSON.parse(body as string) as { spec: { s: string } }).spec.s).toBe(s);
      // What a read returns is the same object.
      expect(await things.get(key(`w-${i}`))).toEqual(JSON.parse(body as string));
    }
  });

  it('of an update is too, at the resourceVersion of the update', async () => {
    const created = await things.create(key('u'), object('u', { spec: { s: 'before' } }));
    for (const [i, s] of strings.entries()) {
      const { object: updated } = await things.guaranteedUpdate(key('u'), (current) => ({ ...current!, spec: { s, i } }));
      expect(Object.isFrozen(updated.spec)).toBe(true);
      expect(BigInt(updated.metadata.resourceVersion)).toBeGreaterThan(BigInt(created.metadata.resourceVersion));
      const { body } = encode(updated, 'json', true);
      expect(body, JSON.stringify(s)).toBe(JSON.stringify(updated));
      expect(await things.get(key('u'))).toEqual(JSON.parse(body as string));
    }
  });
});
