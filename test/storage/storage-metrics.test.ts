/**
 * /metrics of storage on each backend, with kube-apiserver's names where kube has them:
 * the watch cache, reads served from it, write batch sizes and the database pool.
 */
import { describe, expect, it } from 'vitest';
import { backends, pipeline, sharedTestServer } from '../support/test-server.js';

/** The value of the one sample of `name` whose labels are exactly `labels` (in the order prom-client prints them); undefined without one. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe.each(backends)('storage metrics on %s', (backend) => {
  const server = sharedTestServer({ backend, args: ['--watch-cache-size', '4321'] });
  const path = '/apis/cairn.dev/v1/namespaces/storage-metrics/pipelines';
  const resource = 'resource="pipelines.cairn.dev"';
  const scrape = async () => (await server().request('GET', '/metrics')).text;
  /** The value of a sample without labels. */
  const plain = (text: string, name: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(name.length + 1));
  };

  it('reports the watch cache with kube’s names: capacity, resourceVersion and events received by resource', async () => {
    expect((await server().request('POST', path, { body: pipeline('w1') })).status).toBe(201);
    const before = await scrape();
    for (const name of ['w2', 'w3']) expect((await server().request('POST', path, { body: pipeline(name) })).status).toBe(201);
    const after = await scrape();
    // As --watch-cache-size set it.
    expect(plain(after, 'apiserver_watch_cache_capacity')).toBe(4_321);
    expect(plain(after, 'apiserver_watch_cache_resource_version')).toBeGreaterThanOrEqual(plain(before, 'apiserver_watch_cache_resource_version')! + 2);
    expect(sample(after, 'apiserver_watch_cache_events_received_total', resource)).toBe(
      sample(before, 'apiserver_watch_cache_events_received_total', resource)! + 2,
    );
    // The event log's head minus the cache's newest: this replica's own writes reach its cache at commit.
    expect(plain(after, 'cairn_event_log_lag')).toBe(0);
  });

  it('counts reads served from the cache: consistent gets and lists, the objects a list looked at, and their waits', async () => {
    expect((await server().request('POST', path, { body: pipeline('r1') })).status).toBe(201);
    const before = await scrape();
    expect((await server().request('GET', `${path}/r1`)).status).toBe(200);
    const listed = await server().request('GET', path);
    expect(listed.status).toBe(200);
    const after = await scrape();
    const consistent = `${resource},success="true",fallback="false"`;
    // The first GET of a resource may be the database's while its objects load; the list waits for the load.
    expect(sample(after, 'apiserver_watch_cache_consistent_read_total', consistent)).toBeGreaterThan(
      sample(before, 'apiserver_watch_cache_consistent_read_total', consistent) ?? 0,
    );
    expect(sample(after, 'apiserver_cache_list_total', resource)).toBe((sample(before, 'apiserver_cache_list_total', resource) ?? 0) + 1);
    expect(sample(after, 'apiserver_cache_list_returned_objects_total', resource)).toBe(
      (sample(before, 'apiserver_cache_list_returned_objects_total', resource) ?? 0) + listed.json.items.length,
    );
    expect(sample(after, 'cairn_object_cache_objects', resource)).toBe(listed.json.items.length);
    expect(sample(after, 'apiserver_watch_cache_initializations_total', resource)).toBe(1);
    expect(plain(after, 'apiserver_watch_cache_read_wait_seconds_count')).toBeGreaterThan(plain(before, 'apiserver_watch_cache_read_wait_seconds_count') ?? 0);
    expect(sample(after, 'apiserver_watch_cache_read_wait_seconds_bucket', 'le="+Inf"')).toBe(plain(after, 'apiserver_watch_cache_read_wait_seconds_count'));
  });

  it('reports the sizes of write batches, growing with writes', async () => {
    const before = await scrape();
    const writes = ['b1', 'b2', 'b3', 'b4'];
    await Promise.all(writes.map(async (name) => expect((await server().request('POST', path, { body: pipeline(name) })).status).toBe(201)));
    const after = await scrape();
    const count = (text: string) => plain(text, 'cairn_storage_write_batch_size_count') ?? 0;
    const sum = (text: string) => plain(text, 'cairn_storage_write_batch_size_sum') ?? 0;
    expect(count(after)).toBeGreaterThan(count(before));
    expect(count(after) - count(before)).toBeLessThanOrEqual(writes.length);
    expect(sum(after) - sum(before)).toBe(writes.length);
    expect(sample(after, 'cairn_storage_write_batch_size_bucket', 'le="256"')).toBe(count(after));
  });

  it('reports the database pool: connections in use and idle, and work waiting', async () => {
    const text = await scrape();
    const states = ['in_use', 'idle', 'waiting'].map((state) => sample(text, 'cairn_database_pool_connections', `state="${state}"`));
    for (const value of states) expect(value).toBeGreaterThanOrEqual(0);
    // The scrape itself holds no connection when these are read; PGlite has exactly one.
    if (backend === 'pglite') expect(states[0]! + states[1]!).toBe(1);
    else expect(states[0]! + states[1]!).toBeGreaterThanOrEqual(1);
  });
});
