/**
 * SIGTERM to the real command: readyz fails at once while requests and watches are still
 * served through the shutdown delay; HTTP/2 sessions get a graceful GOAWAY as the delay
 * begins (those opened during it, after their first request), as HTTP/1.1 responses say
 * `Connection: close`, so clients move on while what they have open goes on; watches then
 * end cleanly (HTTP/1.1 and HTTP/2) so clients re-watch elsewhere, and the process exits 0
 * within the delay plus the grace period.
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

/** What a client's session was told by GOAWAY, and whether the server's watches were still open then (the delay not over). */
interface Goaway {
  readonly errorCode: number;
  readonly lastStreamID: number;
  readonly watchOpen: boolean;
}

/** The names of the objects in a watch's events, one JSON event a line. */
const namesIn = (body: string): string[] =>
  body
    .trim()
    .split('\n')
    .map((line) => (JSON.parse(line) as { object: { metadata: { name: string } } }).object.metadata.name);

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
    let watchOpen = true;
    const connect = () => {
      const session = http2.connect(url, { ca: servingCaPem, cert: adminCertPem, key: adminKeyPem });
      session.on('error', () => undefined);
      const goaway = new Promise<Goaway>((resolve) =>
        session.once('goaway', (errorCode: number, lastStreamID: number) => resolve({ errorCode, lastStreamID, watchOpen })),
      );
      return { session, goaway };
    };
    const { session, goaway } = connect();
    const h2Stream = session.request({ ':path': `${pipelines}?watch=true` });
    let h2Body = '';
    h2Stream.setEncoding('utf8').on('data', (chunk: string) => (h2Body += chunk));
    const h2Ended = new Promise<string>((resolve) => {
      h2Stream.once('end', () => resolve('end'));
      h2Stream.once('aborted', () => resolve('aborted'));
      h2Stream.once('error', () => resolve('error'));
    }).finally(() => (watchOpen = false));
    const [headers] = (await once(h2Stream, 'response')) as [http2.IncomingHttpHeaders];
    expect(headers[':status']).toBe(200);

    const signalledAt = Date.now();
    child.kill('SIGTERM');
    // Not ready at once, yet still serving through the delay: a load balancer drains it meanwhile.
    while ((await request('GET', '/readyz')).status === 200);
    // HTTP/2 clients are told at once to send their next requests elsewhere: GOAWAY, no error, the watch's stream the last taken.
    expect(await goaway).toEqual({ errorCode: 0, lastStreamID: 1, watchOpen: true });
    // Each request opens a connection, which the listener takes only until the delay is over: a 201 was served in it.
    // A session opened now has its first request served, and is told to go after it.
    const late = connect();
    const lateStream = late.session.request({ ':path': pipelines });
    lateStream.resume();
    const [during, [lateHeaders]] = await Promise.all([
      request('POST', pipelines, pipeline('during')),
      once(lateStream, 'response') as Promise<[http2.IncomingHttpHeaders]>,
    ]);
    expect(during.status, during.text).toBe(201);
    expect(lateHeaders[':status']).toBe(200);
    expect(await late.goaway).toEqual({ errorCode: 0, lastStreamID: 1, watchOpen: true });

    // Then watches end cleanly, having carried what was written during the delay: the HTTP/2 one too, after its session's GOAWAY.
    expect(await h1Ended).toBe('end');
    expect(Date.now() - signalledAt).toBeGreaterThanOrEqual(delaySeconds * 1000);
    expect(namesIn(h1Body)).toEqual(['before', 'during']);
    expect(await h2Ended).toBe('end');
    expect(namesIn(h2Body)).toEqual(['before', 'during']);
    expect(await exited).toBe(0);
    // The grace period bounds what follows the delay; the margin is the process's own exit on a loaded machine.
    expect(Date.now() - signalledAt).toBeLessThan((delaySeconds + graceSeconds) * 1000 + 5000);
    session.destroy();
    late.session.destroy();
  } finally {
    await server.stop();
  }
});
