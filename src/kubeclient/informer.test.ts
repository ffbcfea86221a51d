/**
 * The Informer, the one list-watch-relist loop: the cache it keeps across lists, watches,
 * relists (table-driven over every way a watch or list stops) and resyncs, and what its
 * handlers are told.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, ResourceExpiredError } from './api-error.js';
import { eventually } from '../../test/support/eventually.js';
import { Informer, keyOf } from './informer.js';
import { item, scripted } from '../../test/support/scripted-list-watch.js';

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

  /**
   * Every way a watch or a list stops short of the caller's abort, and how the informer
   * lists again: at once and silently when the resourceVersion is gone or the server
   * ended the watch, after the retry delay and told to `onError` otherwise. Either way it
   * reports what changed while it was not watching (b deleted, a changed, c added) and
   * watches on from the new list's resourceVersion.
   */
  const expired = new ResourceExpiredError({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 2 (9)' });
  const disconnected = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  const forbidden = new ApiError({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' });
  const first = { items: [item('a', '1'), item('b', '2')], resourceVersion: '2', events: [] };
  const relisted = { items: [item('a', '7'), item('c', '8')], resourceVersion: '9', events: [] };
  it.each([
    { stop: '410 Gone on the watch', rounds: [{ ...first, error: expired }], reported: [], waits: false },
    { stop: 'an expired continue token on the relist', rounds: [{ ...first, error: expired }, { listError: expired }], reported: [], waits: false },
    { stop: 'the server ending the watch (its timeoutSeconds)', rounds: [{ ...first, ends: true }], reported: [], waits: false },
    { stop: 'a dropped connection', rounds: [{ ...first, error: disconnected }], reported: [disconnected], waits: true },
    { stop: 'a refusal (403)', rounds: [{ ...first, error: forbidden }], reported: [forbidden], waits: true },
  ])('lists again after $stop', async ({ rounds, reported, waits }) => {
    const { source: listWatch, calls } = scripted([...rounds, relisted]);
    const errors: unknown[] = [];
    // A relist that must come at once would time the test out behind a minute's delay.
    const retryDelayMs = waits ? 50 : 60_000;
    const informer = new Informer(listWatch, { onError: (error) => errors.push(error), retryDelayMs });
    const changes: string[] = [];
    informer.onChange((previous, current) =>
      changes.push(`${keyOf((current ?? previous)!)} ${previous?.metadata.resourceVersion ?? '-'}→${current?.metadata.resourceVersion ?? '-'}`),
    );
    const stop = new AbortController();
    const started = Date.now();
    const running = informer.run(stop.signal);
    await until(() => calls.at(-1) === 'watch 9');
    expect(calls).toEqual(['list', 'watch 2', ...rounds.slice(1).map(() => 'list'), 'list', 'watch 9']);
    expect(errors).toEqual(reported);
    if (waits) expect(Date.now() - started).toBeGreaterThanOrEqual(retryDelayMs);
    expect(changes).toEqual(['default/a -→1', 'default/b -→2', 'default/b 2→-', 'default/a 1→7', 'default/c -→8']);
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
