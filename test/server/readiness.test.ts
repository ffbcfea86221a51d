/**
 * /readyz fails until storage is migrated and the API can serve, and again during
 * shutdown; discovery answers throughout. The health endpoints name their checks as
 * kube-apiserver's do, each answering alone too.
 */
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/server/config.js';
import { startServer } from '../../src/server/server.js';
import { pipeline, requestServer, startTestServer } from '../support/test-server.js';

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

describe('readiness', () => {
  it('is not ready, and answers data requests with 503, while the database cannot be reached', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'cairn-ready-'));
    const url = `postgres://postgres@127.0.0.1:${await closedPort()}/postgres`;
    const server = await startServer(parseConfig(['--port', '0', '--data-dir', dataDir, '--database-url', url], {}), pino({ level: 'silent' }));
    try {
      const ready = await requestServer(server, 'GET', '/readyz?verbose', { clientCert: null });
      expect(ready.status).toBe(500);
      expect(ready.text).toContain('[-]poststarthook/storage-ready failed: reason withheld');
      expect(ready.text).toContain('[-]database failed: reason withheld');
      expect(ready.text).toContain('readyz check failed');
      const hook = await requestServer(server, 'GET', '/readyz/poststarthook/storage-ready', { clientCert: null });
      expect([hook.status, hook.text]).toEqual([500, 'internal server error: not finished\n']);
      // The database's reason says no more than that: the driver's error names hosts.
      const database = await requestServer(server, 'GET', '/readyz/database', { clientCert: null });
      expect([database.status, database.text]).toEqual([500, 'internal server error: the database did not answer a ping\n']);
      expect((await requestServer(server, 'GET', '/livez', { clientCert: null })).status).toBe(200);
      expect((await requestServer(server, 'GET', '/apis/cairn.dev/v1')).status).toBe(200);
      const data = await requestServer(server, 'GET', '/apis/cairn.dev/v1/namespaces/default/pipelines');
      expect(data.status).toBe(503);
      expect(data.headers['retry-after']).toBe('1');
      expect(data.json).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    } finally {
      await server.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('fails readyz during the shutdown delay while still answering', async () => {
    const server = await startTestServer({ backend: 'pglite', args: ['--shutdown-delay', '3'] });
    expect((await server.request('GET', '/readyz', { clientCert: null })).status).toBe(200);
    const closing = server.destroy();
    const during = await server.request('GET', '/readyz?verbose', { clientCert: null });
    expect(during.status).toBe(500);
    expect(during.text).toContain('[-]shutdown failed: reason withheld');
    expect(during.text).toContain('[+]database ok');
    // Excluding shutdown is how an operator asks whether the rest is still sound, as with kube.
    expect((await server.request('GET', '/readyz?exclude=shutdown', { clientCert: null })).status).toBe(200);
    const shutdown = await server.request('GET', '/readyz/shutdown', { clientCert: null });
    expect([shutdown.status, shutdown.text]).toEqual([500, 'internal server error: process is shutting down\n']);
    // Still answering: a write and a read of data, while load balancers take it out of rotation.
    const pipelines = '/apis/cairn.dev/v1/namespaces/default/pipelines';
    expect((await server.request('POST', pipelines, { body: pipeline('during-delay') })).status).toBe(201);
    const listed = await server.request('GET', pipelines);
    expect([listed.status, listed.json.items.map((item: { metadata: { name: string } }) => item.metadata.name)]).toEqual([200, ['during-delay']]);
    await closing;
  });

  it('names its checks as kube-apiserver does, answers each alone, and skips those excluded', async () => {
    const server = await startTestServer({ backend: 'pglite' });
    try {
      const anonymous = { clientCert: null };
      const ready = await server.request('GET', '/readyz?verbose', anonymous);
      expect(ready.status).toBe(200);
      expect(ready.text).toBe(
        [
          '[+]ping ok',
          '[+]log ok',
          '[+]database ok',
          '[+]poststarthook/storage-ready ok',
          '[+]poststarthook/start-compaction ok',
          '[+]shutdown ok',
          'readyz check passed',
          '',
        ].join('\n'),
      );
      for (const endpoint of ['livez', 'healthz']) {
        const live = await server.request('GET', `/${endpoint}?verbose`, anonymous);
        expect([live.status, live.text]).toEqual([200, `[+]ping ok\n[+]log ok\n${endpoint} check passed\n`]);
      }
      expect((await server.request('GET', '/readyz', anonymous)).text).toBe('ok');
      for (const path of ['/livez/ping', '/livez/log', '/healthz/log', '/readyz/database', '/readyz/poststarthook/start-compaction', '/readyz/shutdown']) {
        const one = await server.request('GET', path, anonymous);
        expect([one.status, one.text], path).toEqual([200, 'ok']);
      }
      expect((await server.request('GET', '/livez/database', anonymous)).status).toBe(404);
      const excluded = await server.request('GET', '/readyz?verbose&exclude=database&exclude=etcd', anonymous);
      expect(excluded.status).toBe(200);
      expect(excluded.text).toContain('[+]database excluded: ok\n');
      expect(excluded.text).toContain('\nwarn: some health checks cannot be excluded: no matches for "etcd"\nreadyz check passed\n');
      expect(excluded.headers['content-type']).toBe('text/plain; charset=utf-8');
    } finally {
      await server.destroy();
    }
  });
});
