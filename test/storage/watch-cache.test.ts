/**
 * The watch cache's window: events appended in order, and a batch this process
 * committed that left a resourceVersion unused (a create that lost a race inside its
 * batch) advancing the window past it, so the next batch appends without a query. And
 * its dispatch: an append wakes only the watchers of its events' resource and namespace,
 * each through the one registration it keeps for its life.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import type { StoredObject } from '../../src/machinery/meta/object.js';
import { EventLogWatcher } from '../../src/storage/event-log-watcher.js';
import type { Database } from '../../src/storage/database.js';
import { WatchCache } from '../../src/storage/watch-cache.js';
import { WrittenEvent } from '../../src/storage/written-event.js';

const event = (rv: bigint, name = `o${rv}`, namespace = 'ns') =>
  new WrittenEvent(
    { rv, resource: 'things.test', namespace, name, type: 'ADDED', labels: { tier: 'gold' }, fields: {} },
    { text: JSON.stringify({ apiVersion: 'test/v1', kind: 'Thing', metadata: { name, namespace, uid: name, resourceVersion: '' }, spec: { n: 1 } }) },
  );

/** A wait on `cache` for `namespace`'s events (every namespace's when undefined), and what it resolved with, once it has. */
function waitFor(cache: WatchCache, namespace: string | undefined, signal: AbortSignal, deadline?: number) {
  const wait = { done: false, through: undefined as bigint | undefined };
  void cache
    .follow(signal, 'things.test', namespace)
    .wait(cache.newest, deadline)
    .then((through) => {
      wait.done = true;
      wait.through = through;
    });
  return wait;
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

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

  it('keeps events by count and by age: what falls out of either is for the event log to serve', () => {
    let now = 1_000;
    const cache = new WatchCache(10n, { capacity: 3, maxAgeMs: 60_000, now: () => now });
    cache.append([event(11n), event(12n)]);
    now += 30_000;
    cache.append([event(13n), event(14n)]);
    // By count: 11 went as 14 came.
    expect(cache.after(10n)).toBeUndefined();
    expect(cache.after(11n)?.map((e) => e.rv)).toEqual([12n, 13n, 14n]);
    // By age: 12 is a minute old, 13 and 14 half that; reading is enough to drop it.
    now += 30_001;
    expect(cache.after(11n)).toBeUndefined();
    expect(cache.after(12n)?.map((e) => e.rv)).toEqual([13n, 14n]);
    expect(cache.size).toBe(2);
    // Everything old: an empty window that still knows its newest, and takes new events.
    now += 60_000;
    expect(cache.size).toBe(0);
    expect(cache.after(14n)).toEqual([]);
    expect(cache.after(13n)).toBeUndefined();
    cache.append([event(15n)]);
    expect(cache.after(14n)?.map((e) => e.rv)).toEqual([15n]);
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

  it('wakes only the watchers of the appended events’ resource and namespace, telling them what they may pass unread', async () => {
    const cache = new WatchCache(10n);
    const stop = new AbortController();
    const inA = waitFor(cache, 'a', stop.signal);
    const inB = waitFor(cache, 'b', stop.signal);
    const everywhere = waitFor(cache, undefined, stop.signal);
    cache.append([event(11n, 'x', 'c'), event(12n, 'y', 'b'), event(13n, 'z', 'b')]);
    await settle();
    // 11 (namespace c) concerns neither: each may move its cursor to just before its first event.
    expect(everywhere).toEqual({ done: true, through: 10n });
    expect(inB).toEqual({ done: true, through: 11n });
    expect(inA.done).toBe(false);
    stop.abort();
    await settle();
    expect(inA).toEqual({ done: true, through: undefined });
  });

  it('leaves a thousand watchers of other namespaces asleep while one namespace changes', async () => {
    const cache = new WatchCache(10n, { capacity: 100 });
    const stop = new AbortController();
    const others = Array.from({ length: 1000 }, (_, n) => waitFor(cache, `other-${n}`, stop.signal));
    // More events than the cache holds: the sleepers' cursors fall out of its window, which they need not read.
    for (let rv = 11n; rv < 311n; rv++) {
      const target = waitFor(cache, 'target', stop.signal);
      cache.append([event(rv, `t${rv}`, 'target')]);
      await settle();
      expect(target).toEqual({ done: true, through: rv - 1n });
    }
    expect(others.filter((wait) => wait.done)).toEqual([]);
    stop.abort();
  });

  it('keeps one registration per watcher: every wait woken once by an append it follows, one listener on its signal, and none after it aborts', async () => {
    const cache = new WatchCache(10n);
    const stop = new AbortController();
    const follower = cache.follow(stop.signal, 'things.test', 'a');
    for (let rv = 11n; rv <= 60n; rv++) {
      let woken = 0;
      let through: bigint | undefined;
      void follower.wait(cache.newest).then((t) => {
        woken++;
        through = t;
      });
      // Another namespace's event leaves it asleep; its own wakes it once, passing what came before.
      cache.append([event(rv, `b${rv}`, 'b')]);
      await settle();
      expect(woken).toBe(0);
      expect(() => follower.wait(cache.newest)).toThrow(/once at a time/);
      cache.append([event(++rv, `a${rv}`, 'a')]);
      await settle();
      expect({ woken, through }).toEqual({ woken: 1, through: rv - 1n });
    }
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(1);
    const waiting = follower.wait(cache.newest);
    stop.abort();
    expect(await waiting).toBeUndefined();
    expect(await follower.wait(cache.newest)).toBeUndefined();
    expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
  });

  it('at a bookmark’s deadline, lets a watcher pass everything appended meanwhile; with events after its cursor, does not wait', async () => {
    const cache = new WatchCache(10n);
    const stop = new AbortController();
    const bookmark = waitFor(cache, 'a', stop.signal, Date.now() + 20);
    cache.append([event(11n, 'x', 'b')]);
    await vi.waitFor(() => expect(bookmark.done).toBe(true));
    expect(bookmark.through).toBe(11n);
    const behind = await cache.follow(stop.signal, 'things.test', 'a').wait(10n);
    expect(behind).toBeUndefined();
    stop.abort();
  });

  it('lets a watcher say whether events are at hand, so its stream sends a batch in one write, and stops it when its consumer leaves', async () => {
    const cache = new WatchCache(10n);
    let stopped = 0;
    const watcher = new EventLogWatcher({
      resource: 'things.test',
      namespace: 'ns',
      predicate: {},
      from: 10n,
      decode: (object) => object,
      // Everything it reads is in the cache: the database is never asked.
      database: undefined as unknown as Database,
      cache,
      onStop: () => stopped++,
    });
    cache.append([event(11n), event(12n, 'elsewhere', 'other'), event(13n)]);
    const events = watcher[Symbol.asyncIterator]();
    expect((await events.next()).value).toMatchObject({ type: 'ADDED', resourceVersion: '11' });
    expect(watcher.pending()).toBe(true);
    expect((await events.next()).value).toMatchObject({ type: 'ADDED', resourceVersion: '13' });
    expect(watcher.pending()).toBe(false);
    const waiting = events.next();
    cache.append([event(14n)]);
    expect((await waiting).value).toMatchObject({ resourceVersion: '14' });
    await events.return!();
    expect(stopped).toBe(1);
    expect(await events.next()).toEqual({ value: undefined, done: true });
  });
});
