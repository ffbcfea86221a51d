/**
 * Memory held by watches (issue 18): what a watcher holds is bounded by what it still
 * needs — its position and a bounded send buffer — never by how many events it has
 * received, and a closed watcher leaves nothing. The server runs as a child process
 * with the inspector open; the test forces full garbage collections there and compares
 * what the heap's object spaces still hold (compiled code, which grows as the optimizer
 * warms up, is left out), so nothing here depends on timing and the server carries no
 * test hook. Before the fix, 200 watchers × 500 events kept 37 MB (390 bytes per
 * delivery) and each thousand watchers opened and closed kept 2 MB.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInspectedServer, type InspectedServer } from '../support/inspected-server.js';
import { pipeline } from '../support/test-server.js';
import { openCountingWatch, type CountingWatch } from '../support/watch-client.js';

// Thousands of requests through TLS take ~10 s alone and several times that on a loaded 2-core box; nothing here is timed.
const heavyTestTimeoutMs = 240_000;

const pipelines = '/apis/cairn.dev/v1/namespaces/memory/pipelines';
const MB = 1024 * 1024;

/** Watchers, and events delivered to each: 100 bytes kept per delivery would be 10 MB. */
const watchers = 200;
const events = 500;
/** What the object heap may differ by between two measurements for reasons other than the watches (pools, noise: about 0.2 MB). */
const margin = 1 * MB;
/** What the watch cache may hold per event it keeps (the object, its labels and fields, before and after): about 2 KiB here. */
const cacheBytesPerEvent = 4 * 1024;

describe('watch memory', () => {
  let server: InspectedServer;
  let created = 0;

  beforeAll(async () => {
    server = await startInspectedServer();
  });
  afterAll(async () => {
    await server?.destroy();
  });

  /** Creates `count` Pipelines, eight requests at a time. */
  async function createPipelines(count: number): Promise<void> {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < count) {
        next++;
        const name = `p-${created++}`;
        const reply = await server.request('POST', pipelines, { body: pipeline(name, { replicas: 2 }, { app: 'memory' }) });
        if (reply.status !== 201) throw new Error(`create ${name}: ${reply.status} ${reply.text}`);
      }
    };
    await Promise.all(Array.from({ length: 8 }, worker));
  }

  /** Opens `count` watchers (as kubectl and informers do: with bookmarks) from the current resourceVersion. */
  async function openWatchers(count: number): Promise<CountingWatch[]> {
    const rv = (await server.request('GET', pipelines)).json.metadata.resourceVersion as string;
    const opened: CountingWatch[] = [];
    // A hundred handshakes at a time: the listener's backlog, not the server, would refuse more.
    for (let i = 0; i < count; i += 100) {
      const batch = Array.from({ length: Math.min(100, count - i) }, () =>
        openCountingWatch(server, `${pipelines}?watch=true&allowWatchBookmarks=true&resourceVersion=${rv}`),
      );
      opened.push(...(await Promise.all(batch)));
    }
    for (const watch of opened) expect(watch.status).toBe(200);
    return opened;
  }

  /** Closes `watches` and waits until the server has seen every one go. */
  async function closeWatchers(watches: readonly CountingWatch[], connectionsBefore: number): Promise<void> {
    for (const watch of watches) watch.close();
    while ((await server.connections()) > connectionsBefore) await new Promise((resolve) => setTimeout(resolve, 50));
  }

  it(
    'delivering events to watchers retains nothing once they are written; the watch cache grows with events, not deliveries',
    async () => {
      const connections = await server.connections();
      // Warm up every path once (compiled code and pools are not what this test measures).
      const warm = await openWatchers(watchers);
      await createPipelines(50);
      await Promise.all(warm.map((w) => w.waitFor(50, 'ADDED')));
      await closeWatchers(warm, connections);

      // The watch cache alone: the same number of events, delivered to nobody.
      const beforeCacheOnly = await server.heap();
      await createPipelines(events);
      const cacheOnly = (await server.heap()).objects - beforeCacheOnly.objects;

      const watches = await openWatchers(watchers);
      // A watcher's first events allocate what it keeps for its life (TLS and stream buffers): its own cost, not its deliveries'.
      await createPipelines(10);
      await Promise.all(watches.map((w) => w.waitFor(10, 'ADDED')));
      const withWatchers = await server.heap();
      await createPipelines(events);
      await Promise.all(watches.map((w) => w.waitFor(10 + events, 'ADDED')));
      const afterDeliveries = await server.heap();
      await closeWatchers(watches, connections);

      const delivered = afterDeliveries.objects - withWatchers.objects;
      const report =
        `${watchers} watchers × ${events} events: object heap +${mb(delivered)} with them (heapUsed ${mb(withWatchers.used)} → ${mb(afterDeliveries.used)}), ` +
        `+${mb(cacheOnly)} for the same events with no watcher`;
      // The cache holds each event once, whoever reads it.
      expect(cacheOnly, report).toBeLessThanOrEqual(events * cacheBytesPerEvent);
      // 100,000 deliveries cost what the same events cost with nobody watching.
      expect(delivered - cacheOnly, report).toBeLessThanOrEqual(margin);
    },
    heavyTestTimeoutMs,
  );

  it(
    '1,000 watchers opened and closed leave nothing behind',
    async () => {
      const connections = await server.connections();
      const openAndClose = async (): Promise<void> => {
        const watches = await openWatchers(1000);
        await createPipelines(1);
        await Promise.all(watches.map((w) => w.waitFor(1, 'ADDED')));
        await closeWatchers(watches, connections);
      };
      // The first thousand fill the server's pools (parsers, TLS contexts), reused by the next.
      await openAndClose();
      const before = await server.heap();
      await openAndClose();
      const after = await server.heap();
      const report = `object heap ${mb(before.objects)} → ${mb(after.objects)} (heapUsed ${mb(before.used)} → ${mb(after.used)})`;
      expect(after.objects - before.objects, report).toBeLessThanOrEqual(margin);
    },
    heavyTestTimeoutMs,
  );
});

/** Bytes as MiB, for failure messages. */
function mb(bytes: number): string {
  return `${(bytes / MB).toFixed(2)} MB`;
}
