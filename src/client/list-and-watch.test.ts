/**
 * The typed client's listAndWatch: listing, then watching, and relisting on 410 Gone without
 * losing or repeating a change.
 */
import { describe, expect, it } from 'vitest';
import { ApiError, ResourceExpiredError } from '../machinery/kubeclient/api-error.js';
import { listAndWatch, type ListAndWatchEvent } from './list-and-watch.js';
import { item, scripted, type Item } from '../../test/support/scripted-list-watch.js';
import type { ListWatch } from '../machinery/kubeclient/list-watch.js';

const describeEvent = (event: ListAndWatchEvent<Item>) =>
  event.type === 'SYNCED' ? 'SYNCED' : `${event.type} ${event.object.metadata.name} ${event.object.metadata.resourceVersion}`;

/** The first `count` events. */
async function take(events: AsyncIterable<ListAndWatchEvent<Item>>, count: number): Promise<string[]> {
  const seen: string[] = [];
  for await (const event of events) if (seen.push(describeEvent(event)) === count) break;
  return seen;
}

describe('listAndWatch', () => {
  it('yields the listed objects as ADDED, SYNCED, then the watch events', async () => {
    const { source, calls } = scripted([
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
    expect(await take(listAndWatch(source), 6)).toEqual(['ADDED a 1', 'ADDED b 2', 'SYNCED', 'MODIFIED a 3', 'ADDED c 4', 'DELETED b 2']);
    expect(calls).toEqual(['list', 'watch 2']);
  });

  it('lists again on 410 Gone and yields what changed meanwhile, then watches on', async () => {
    const expired = new ResourceExpiredError({ kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 2 (9)' });
    const { source, calls } = scripted([
      { items: [item('a', '1'), item('b', '2'), item('d', '2')], resourceVersion: '2', error: expired },
      { items: [item('a', '7'), item('c', '8'), item('d', '2')], resourceVersion: '9', events: [{ type: 'DELETED', object: item('c', '10') }] },
    ]);
    const errors: unknown[] = [];
    const events = await take(listAndWatch(source, { onError: (error) => errors.push(error), retryDelayMs: 60_000 }), 8);
    // A deletion carries the object as last yielded; d did not change and is not repeated; one SYNCED, after the first list.
    expect(events).toEqual(['ADDED a 1', 'ADDED b 2', 'ADDED d 2', 'SYNCED', 'DELETED b 2', 'MODIFIED a 7', 'ADDED c 8', 'DELETED c 8']);
    expect(calls).toEqual(['list', 'watch 2', 'list', 'watch 9']);
    expect(errors).toEqual([]);
  });

  it('retries other failures after the retry delay, reporting them', async () => {
    const unavailable = new ApiError({ kind: 'Status', code: 503, reason: 'ServiceUnavailable', message: 'later' });
    const { source } = scripted([{ listError: unavailable }, { items: [item('a', '1')], resourceVersion: '1' }]);
    const errors: unknown[] = [];
    expect(await take(listAndWatch(source, { onError: (error) => errors.push(error), retryDelayMs: 1 }), 2)).toEqual(['ADDED a 1', 'SYNCED']);
    expect(errors).toEqual([unavailable]);
  });

  it('ends with the ApiError of a refusal', async () => {
    const forbidden = new ApiError({ kind: 'Status', code: 403, reason: 'Forbidden', message: 'no' });
    const { source, calls } = scripted([{ listError: forbidden }]);
    await expect(take(listAndWatch(source, { retryDelayMs: 1 }), 1)).rejects.toBe(forbidden);
    expect(calls).toEqual(['list']);
  });

  it('finishes without an error when its signal aborts, and stops listing and watching when the caller leaves', async () => {
    const { source } = scripted([{ items: [item('a', '1')], resourceVersion: '1' }]);
    const stop = new AbortController();
    const seen: string[] = [];
    for await (const event of listAndWatch(source, { signal: stop.signal })) {
      seen.push(describeEvent(event));
      if (event.type === 'SYNCED') stop.abort();
    }
    expect(seen).toEqual(['ADDED a 1', 'SYNCED']);

    let aborted: AbortSignal | undefined;
    const watched: ListWatch<Item> = { ...source, watch: (resourceVersion, signal) => ((aborted = signal), source.watch(resourceVersion, signal)) };
    expect(await take(listAndWatch(watched), 2)).toEqual(['ADDED a 1', 'SYNCED']);
    expect(aborted?.aborted).toBe(true);
  });
});
