/**
 * /readyz fails until storage is migrated and the API can serve, and again during
 * shutdown; discovery answers throughout.
 */
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/server/config.js';
import { startServer } from '../../src/server/server.js';
import { requestServer, startTestServer } from '../support/test-server.js';

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
      expect(ready.text).toContain('[-]migrations failed: reason withheld');
      expect(ready.text).toContain('[-]database failed: reason withheld');
      expect(ready.text).toContain('readyz check failed');
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
    const server = await startTestServer({ backend: 'pglite', args: ['--shutdown-delay', '2'] });
    expect((await server.request('GET', '/readyz', { clientCert: null })).status).toBe(200);
    const closing = server.destroy();
    const during = await server.request('GET', '/readyz?verbose', { clientCert: null });
    expect(during.status).toBe(500);
    expect(during.text).toContain('[-]shutdown failed: reason withheld');
    expect(during.text).toContain('[+]database ok');
    await closing;
  });
});
