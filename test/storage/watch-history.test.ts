/**
 * A watch's history across a server restart, on each backend: a watch from a
 * resourceVersion inside the retention window resumes on the new process, and once
 * compaction has dropped that history the same watch is 410 Gone.
 */
import { describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { backends, pipeline, startTestServer, type TestResponse } from '../support/test-server.js';
import { openWatch } from '../support/watch-client.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';

describe.each(backends)('watch history on %s', (backend) => {
  it('gives 410 Expired past the retention window and resumes inside it after a restart', async () => {
    let server = await startTestServer({ backend, args: ['--event-retention', '3600'] });
    const { dataDir, databaseUrl } = server;
    try {
      const before = (await server.request('POST', pipelines, { body: pipeline('h-1') })).json.metadata.resourceVersion;
      await server.request('POST', pipelines, { body: pipeline('h-2') });
      await server.close();
      // The same data, a new process-level server: a watch from inside the window resumes.
      server = await startTestServer({ backend, dataDir, databaseUrl, args: ['--event-retention', '0', '--compaction-interval', '0.2'] });
      const resumed = await openWatch(server, `${pipelines}?watch=true&resourceVersion=${before}`);
      expect(resumed.status).toBe(200);
      const [event] = await resumed.waitFor(1);
      expect(event.object.metadata.name).toBe('h-2');
      resumed.close();
      // With no retention, compaction soon drops that history: the same watch is now 410.
      let res: TestResponse | undefined;
      // Each probe is a watch of at most 1 s; 30 s stays well inside the test's timeout.
      await eventually(
        'the history compacted',
        30_000,
        async () => {
          res = await server.request('GET', `${pipelines}?watch=true&resourceVersion=${before}&timeoutSeconds=1`);
          return res.status === 410;
        },
        200,
      );
      expect(res?.status).toBe(410);
      expect(res?.json).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
      expect(res?.json.message).toContain('too old resource version');
    } finally {
      await server.destroy();
    }
  });
});
