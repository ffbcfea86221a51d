/**
 * /metrics beyond request counts: requests in flight and long-running ones, watch
 * events, stored objects, health checks and compaction runs, with kube-apiserver's names and labels.
 * (Storage's own metrics, per backend: test/storage/storage-metrics.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { pipeline, sharedTestServer } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';

const alpha = '/apis/cairn.dev/v1alpha1/namespaces/metrics/pipelines';
const v1 = '/apis/cairn.dev/v1/namespaces/metrics/pipelines';

/** The value of the one sample of `name` whose labels are exactly `labels` (in the order prom-client prints them); undefined without one. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('server metrics', () => {
  const server = sharedTestServer({ backend: 'pglite', args: ['--compaction-interval', '1'] });
  const scrape = async () => (await server().request('GET', '/metrics')).text;
  /** Scrapes until `check` holds, for at most 20 s; the last scrape. */
  const scrapedWhen = async (check: (text: string) => boolean, what: string): Promise<string> => {
    let text = '';
    await eventually(`${what} reported`, 20_000, async () => check((text = await scrape())), 100);
    return text;
  };

  it('counts requests in flight by kind: the scrape itself is one read', async () => {
    const text = await scrape();
    expect(sample(text, 'apiserver_current_inflight_requests', 'request_kind="readOnly"')).toBe(1);
    expect(sample(text, 'apiserver_current_inflight_requests', 'request_kind="mutating"')).toBe(0);
  });

  it('counts an open watch as long-running, and the events it was sent by version and kind', async () => {
    const labels = 'verb="WATCH",group="cairn.dev",version="v1alpha1",resource="pipelines",subresource="",scope="namespace",component="apiserver"';
    const watch = await openWatch(server(), `${alpha}?watch=true`);
    try {
      expect(sample(await scrape(), 'apiserver_longrunning_requests', labels)).toBe(1);
      for (const name of ['a', 'b', 'c']) expect((await server().request('POST', v1, { body: pipeline(name) })).status).toBe(201);
      await watch.waitFor(3);
      const text = await scrapedWhen(
        (t) => (sample(t, 'apiserver_watch_events_total', 'group="cairn.dev",version="v1alpha1",kind="Pipeline"') ?? 0) >= 3,
        'three watch events',
      );
      expect(sample(text, 'apiserver_watch_events_sizes_count', 'group="cairn.dev",version="v1alpha1",kind="Pipeline"')).toBeGreaterThanOrEqual(3);
      // Each event is a Pipeline of a few hundred bytes: all below the first bucket, 1 KiB.
      expect(sample(text, 'apiserver_watch_events_sizes_bucket', 'le="1024",group="cairn.dev",version="v1alpha1",kind="Pipeline"')).toBeGreaterThanOrEqual(3);
    } finally {
      watch.close();
    }
    await scrapedWhen((t) => sample(t, 'apiserver_longrunning_requests', labels) === 0, 'the watch ending');
  });

  it('reports the objects stored per resource', async () => {
    const stored = (await server().request('GET', '/apis/cairn.dev/v1/pipelines')).json.items.length;
    expect(stored).toBeGreaterThan(0);
    expect(sample(await scrape(), 'apiserver_storage_objects', 'resource="pipelines.cairn.dev"')).toBe(stored);
    expect((await server().request('DELETE', `${v1}/a`)).status).toBe(200);
    expect(sample(await scrape(), 'apiserver_storage_objects', 'resource="pipelines.cairn.dev"')).toBe(stored - 1);
  });

  it('records what the health endpoints found, as kube does, for the alerts on the database', async () => {
    expect((await server().request('GET', '/readyz?exclude=log')).status).toBe(200);
    const text = await scrape();
    expect(sample(text, 'kubernetes_healthcheck', 'name="database",type="readyz"')).toBe(1);
    expect(sample(text, 'kubernetes_healthcheck', 'name="log",type="readyz"')).toBeUndefined();
    expect(sample(text, 'kubernetes_healthchecks_total', 'name="database",type="readyz",status="success"')).toBeGreaterThanOrEqual(1);
  });

  it('counts compaction runs', async () => {
    await scrapedWhen((t) => (sample(t, 'cairn_compaction_runs_total', 'result="success"') ?? 0) >= 1, 'a compaction run');
  });
});
