/**
 * SIGTERM to the real command: readyz fails at once while requests and watches are still
 * served through the shutdown delay, watches then end cleanly (HTTP/1.1 and HTTP/2) so
 * clients re-watch elsewhere, HTTP/2 sessions get GOAWAY, and the process exits 0 within the
 * delay plus the grace period.
 */
import { once } from 'node:events';
import http2 from 'node:http2';
import https from 'node:https';
import { expect, it } from 'vitest';
import { spawnServer } from '../support/server-process.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { pipeline, requestServer } from '../support/test-server.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/shutdown/pipelines';
const delaySeconds = 2;
const graceSeconds = 5;

it('stops gracefully on SIGTERM', { timeout: 60_000 }, async () => {
  // On PostgreSQL: the backend is not the subject, and PGlite's start costs more CPU.
  const server = await spawnServer(
    ['--no-controller', '--shutdown-delay', `${delaySeconds}`, '--shutdown-grace', `${graceSeconds}`, '--database-url', await testDatabaseUrl()],
    { env: { LOG_LEVEL: 'info' } },
  );
  const { child, exited } = server;
  try {
    const endpoint = await server.endpoint();
    const { url } = endpoint;
    const { servingCaPem, adminCertPem, adminKeyPem } = endpoint.pki!;
    const request = (method: string, path: string, body?: unknown) => requestServer(endpoint, method, path, { body });
    expect((await request('POST', pipelines, pipeline('before'))).status).toBe(201);

    // An HTTP/1.1 watch, and an HTTP/2 session carrying another.
    let h1Body = '';
    const h1Ended = new Promise<string>((resolve, reject) => {
      https
        .get(`${url}${pipelines}?watch=true`, { ca: servingCaPem, cert: adminCertPem, key: adminKeyPem }, (res) => {
          res.setEncoding('utf8').on('data', (chunk: string) => (h1Body += chunk));
          res.once('end', () => resolve('end'));
          res.once('aborted', () => resolve('aborted'));
        })
        .on('error', reject);
    });
    const session = http2.connect(url, { ca: servingCaPem, cert: adminCertPem, key: adminKeyPem });
    session.on('error', () => undefined);
    const goaway = once(session, 'goaway');
    const h2Stream = session.request({ ':path': `${pipelines}?watch=true` });
    h2Stream.resume();
    const h2Ended = new Promise<string>((resolve) => {
      h2Stream.once('end', () => resolve('end'));
      h2Stream.once('aborted', () => resolve('aborted'));
      h2Stream.once('error', () => resolve('error'));
    });
    const [headers] = (await once(h2Stream, 'response')) as [http2.IncomingHttpHeaders];
    expect(headers[':status']).toBe(200);

    const signalledAt = Date.now();
    child.kill('SIGTERM');
    // Not ready at once, yet still serving through the delay: a load balancer drains it meanwhile.
    while ((await request('GET', '/readyz')).status === 200);
    // Each request opens a connection, which the listener takes only until the delay is over: a 201 was served in it.
    const during = await request('POST', pipelines, pipeline('during'));
    expect(during.status, during.text).toBe(201);

    // Then watches end cleanly, having carried what was written during the delay, and HTTP/2 clients are told to go.
    expect(await h1Ended).toBe('end');
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(delaySeconds * 1000);
    const names = h1Body
      .trim()
      .split('\n')
      .map((line) => (JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name);
    expect(names).toEqual(['before', 'during']);
    expect(await h2Ended).toBe('end');
    await goaway;
    expect(await exited).toBe(0);
    // The grace period bounds what follows the delay; the margin is the process's own exit on a loaded machine.
    expect(Date.now() - signalledAt).toBeLessThan((delaySeconds + graceSeconds) * 1000 + 5000);
    session.destroy();
  } finally {
    await server.stop();
  }
});
