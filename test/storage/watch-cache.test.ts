/**
 * The watch cache's window: events appended in order, and a batch this process
 * committed that left a resourceVersion unused (a create that lost a race inside its
 * batch) advancing the window past it, so the next batch appends without a query.
 */
import { describe, expect, it } from 'vitest';
import type { StoredObject } from '../../src/machinery/meta/object.js';
import { WatchCache } from '../../src/storage/watch-cache.js';
import { WrittenEvent } from '../../src/storage/written-event.js';

const event = (rv: bigint, name = `o${rv}`) =>
  new WrittenEvent(
    { rv, resource: 'things.test', namespace: 'ns', name, type: 'ADDED', labels: { tier: 'gold' }, fields: {} },
    { text: JSON.stringify({ apiVersion: 'test/v1', kind: 'Thing', metadata: { name, namespace: 'ns', uid: name, resourceVersion: '' }, spec: { n: 1 } }) },
  );

describe('watch cache', () => {
  it('covers a batch through its last resourceVersion, events or not', () => {
    const cache = new WatchCache(10n);
    cache.append([event(11n), event(13n)], 14n);
    expect(cache.newest).toBe(14n);
    expect(cache.after(10n)?.map((e) => e.rv)).toEqual([11n, 13n]);
    expect(cache.after(13n)).toEqual([]);
    // A batch of which nothing was written still moves the window on.
    cache.append([], 16n);
    expect(cache.newest).toBe(16n);
    // What a poll brings again is not appended twice.
    cache.append([event(13n), event(17n)]);
    expect(cache.after(10n)?.map((e) => e.rv)).toEqual([11n, 13n, 17n]);
  });

  it('hands out the object of an event it was given as text, parsed once, frozen, at its resourceVersion', () => {
    const written = event(21n, 'x');
    const object: StoredObject = written.object;
    expect(object).toEqual({ apiVersion: 'test/v1', kind: 'Thing', metadata: { name: 'x', namespace: 'ns', uid: 'x', resourceVersion: '21' }, spec: { n: 1 } });
    expect(written.object).toBe(object);
    expect(Object.isFrozen(object.metadata)).toBe(true);
    expect(Object.isFrozen(object.spec)).toBe(true);
    expect(Object.isFrozen(written.labels)).toBe(true);
    expect(Object.isFrozen(written)).toBe(true);
  });
});
