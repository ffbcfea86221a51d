/**
 * The Informer over its Reflector (whose test covers the loop): the cache it keeps
 * across lists, watches, relists and resyncs, and what its handlers are told.
 */
import { describe, expect, it } from 'vitest';
import { ResourceExpiredError } from './api-error.js';
import { eventually } from '../../../test/support/eventually.js';
import { Informer, keyOf } from './informer.js';
import { item, scripted } from '../../../test/support/scripted-list-watch.js';

/** Waits until `condition` holds (the informer runs on its own). */
const until = (condition: () => boolean): Promise<void> => eventually('the informer', 5000, () => Promise.resolve(condition()), 5);

describe('Informer', () => {
  it('lists, then watches from the list resourceVersion, and reports every change', async () => {
    const { source: listWatch, calls } = scripted([
      {
        items: [item('a', '1'), item('b', '2')],
        resourceVersion: '2',
        events: [
          { type: 'MODIFIED', object: item('a', '3') },
          { type: 'ADDED', object: item('c', '4') },
          { type: 'DELETED', object: item('b', '5') },
        ],
      },
    ]);
    const informer = new Informer(listWatch);
    const changes: string[] = [];
    informer.onChange((previous, current) => changes.push(`${previous?.metadata.resourceVersion ?? '-'}→${current?.metadata.resourceVersion ?? '-'}`));
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await informer.synced;
    await until(() => changes.length === 5);
    expect(calls).toEqual(['list', 'watch 2']);
    expect(changes).toEqual(['-→1', '-→2', '1→3', '-→4', '2→-']);
    expect(informer.list().map(keyOf).sort()).toEqual(['default/a', 'default/c']);
    expect(Object.isFrozen(informer.get('default/a')!.metadata)).toBe(true);
    stop.abort();
    await running;
  });

  it('reports what changed while it was not watching after a relist, and watches on from there', async () => {
    const expired = new ResourceExpiredError({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 2 (9)' });
    const { source: listWatch, calls } = scripted([
      { items: [item('a', '1'), item('b', '2'), item('d', '2')], resourceVersion: '2', error: expired },
      { items: [item('a', '7'), item('c', '8'), item('d', '2')], resourceVersion: '9', events: [{ type: 'DELETED', object: item('c', '10') }] },
    ]);
    const informer = new Informer(listWatch);
    const changes: string[] = [];
    informer.onChange((previous, current) =>
      changes.push(`${keyOf((current ?? previous)!)} ${previous?.metadata.resourceVersion ?? '-'}→${current?.metadata.resourceVersion ?? '-'}`),
    );
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await until(() => changes.length === 7);
    expect(calls).toEqual(['list', 'watch 2', 'list', 'watch 9']);
    // b deleted, a changed and c added meanwhile; d, unchanged, is not reported again; c's deletion carries it as cached.
    expect(changes).toEqual(['default/a -→1', 'default/b -→2', 'default/d -→2', 'default/b 2→-', 'default/a 1→7', 'default/c -→8', 'default/c 8→-']);
    expect(informer.list().map(keyOf).sort()).toEqual(['default/a', 'default/d']);
    stop.abort();
    await running;
  });

  it('hands every cached object to the handlers again at each resync period, unchanged', async () => {
    const { source: listWatch } = scripted([{ items: [item('a', '1'), item('b', '2')], resourceVersion: '2', events: [] }]);
    const informer = new Informer(listWatch, { resyncPeriodMs: 20 });
    const resynced: string[] = [];
    informer.onChange((previous, current) => {
      if (previous !== undefined && previous === current) resynced.push(keyOf(current));
    });
    const stop = new AbortController();
    const running = informer.run(stop.signal);
    await until(() => resynced.length >= 4);
    // Each resync hands over the whole cache: both objects, the same frozen instances the cache holds.
    expect(new Set(resynced.slice(0, 2))).toEqual(new Set(['default/a', 'default/b']));
    stop.abort();
    await running;
    const after = resynced.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(resynced.length).toBe(after);
  });
});
