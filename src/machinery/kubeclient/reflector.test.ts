/**
 * The Reflector, the one list-watch-relist loop, table-driven over every way a watch or
 * a list stops short of the caller's abort: what it calls next, what its sink is handed
 * and what `onError` is told; then the abort itself.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, ResourceExpiredError } from './api-error.js';
import { eventually } from '../../../test/support/eventually.js';
import { Reflector, type ReflectorSink } from './reflector.js';
import { item, scripted, type Item } from '../../../test/support/scripted-list-watch.js';

/** Waits until `condition` holds (the reflector runs on its own). */
const until = (condition: () => boolean): Promise<void> => eventually('the reflector', 5000, () => Promise.resolve(condition()), 5);

/** A sink that writes down what it is handed, e.g. `replace a@1 b@2 at 2`, `MODIFIED a@3`. */
function recording(): { readonly sink: ReflectorSink<Item>; readonly sunk: string[] } {
  const sunk: string[] = [];
  const at = (i: Item) => `${i.metadata.name}@${i.metadata.resourceVersion}`;
  return {
    sink: {
      replace: (items, resourceVersion) => sunk.push(['replace', ...items.map(at), 'at', resourceVersion].join(' ')),
      apply: (event) => sunk.push(`${event.type} ${at(event.object)}`),
    },
    sunk,
  };
}

describe('Reflector', () => {
  const expired = new ResourceExpiredError({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 2 (9)' });
  const disconnected = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  const forbidden = new ApiError({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' });
  const first = { items: [item('a', '1'), item('b', '2')], resourceVersion: '2', events: [] };
  /** The round after the first: a relist's, or (after a watch that ended) the next watch's. */
  const second = { items: [item('a', '7'), item('c', '8')], resourceVersion: '9', events: [] };
  const relisted = ['replace a@1 b@2 at 2', 'replace a@7 c@8 at 9'];
  const shortWatch = expect.objectContaining({ message: expect.stringMatching(/^very short watch from resourceVersion 2/) });

  /**
   * How the reflector goes on: at once and silently when the resourceVersion is gone,
   * after the retry delay and told to `onError` on any other failure (a watch the
   * server ended at once with nothing in it among them); a watch the server ended is
   * watched again from the last resourceVersion seen, a bookmark's included, without a list.
   */
  it.each([
    { stop: '410 Gone on the watch', rounds: [{ ...first, error: expired }], calls: ['list', 'watch 2', 'list', 'watch 9'], sunk: relisted, reported: [] },
    {
      stop: 'an expired continue token on the relist',
      rounds: [{ ...first, error: expired }, { listError: expired }],
      calls: ['list', 'watch 2', 'list', 'list', 'watch 9'],
      sunk: relisted,
      reported: [],
    },
    {
      stop: 'the server ending the watch (its timeoutSeconds)',
      rounds: [
        {
          ...first,
          events: [
            { type: 'MODIFIED' as const, object: item('a', '3') },
            { type: 'BOOKMARK' as const, object: { metadata: { resourceVersion: '5' } } },
          ],
          ends: true,
        },
      ],
      calls: ['list', 'watch 2', 'watch 5'],
      sunk: ['replace a@1 b@2 at 2', 'MODIFIED a@3'],
      reported: [],
    },
    {
      stop: 'the server ending the watch at once with nothing in it',
      rounds: [{ ...first, ends: true }],
      calls: ['list', 'watch 2', 'list', 'watch 9'],
      sunk: relisted,
      reported: [shortWatch],
    },
    {
      stop: 'a dropped connection',
      rounds: [{ ...first, error: disconnected }],
      calls: ['list', 'watch 2', 'list', 'watch 9'],
      sunk: relisted,
      reported: [disconnected],
    },
    { stop: 'a refusal (403)', rounds: [{ ...first, error: forbidden }], calls: ['list', 'watch 2', 'list', 'watch 9'], sunk: relisted, reported: [forbidden] },
  ])('after $stop', async ({ rounds, calls: expected, sunk: handed, reported }) => {
    const { source, calls } = scripted([...rounds, second]);
    const { sink, sunk } = recording();
    const errors: unknown[] = [];
    const waits = reported.length > 0;
    // A relist that must come at once would time the test out behind a minute's delay.
    const retryDelayMs = waits ? 50 : 60_000;
    const stop = new AbortController();
    const started = Date.now();
    const running = new Reflector(source, sink, { onError: (error) => errors.push(error), retryDelayMs }).run(stop.signal);
    await until(() => calls.length === expected.length);
    if (waits) expect(Date.now() - started).toBeGreaterThanOrEqual(retryDelayMs);
    expect(calls).toEqual(expected);
    expect(sunk).toEqual(handed);
    expect(errors).toEqual(reported);
    stop.abort();
    await running;
    expect(calls).toEqual(expected);
  });

  it('stops when its signal aborts, watching or waiting to list again', async () => {
    const { source, calls } = scripted([{ ...first, error: disconnected }]);
    const stop = new AbortController();
    const running = new Reflector(source, recording().sink, { retryDelayMs: 60_000 }).run(stop.signal);
    await until(() => calls.length === 2);
    const aborted = Date.now();
    stop.abort();
    await running;
    // Not a minute later, and with no list after the abort.
    expect(Date.now() - aborted).toBeLessThan(1000);
    expect(calls).toEqual(['list', 'watch 2']);

    const watching = scripted([first]);
    const stopWatching = new AbortController();
    const runningToo = new Reflector(watching.source, recording().sink).run(stopWatching.signal);
    await until(() => watching.calls.length === 2);
    stopWatching.abort();
    await runningToo;
    expect(watching.calls).toEqual(['list', 'watch 2']);
  });
});
