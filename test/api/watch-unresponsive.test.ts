/**
 * A watch whose client stops reading is ended once it has not taken an event for the
 * unresponsive-watcher timeout, as kube's cacher ends a watcher whose buffer stays full:
 * the other watchers get every event meanwhile, the stuck one finds its stream ended
 * cleanly after a prefix of the events, and re-watching from its last one gets the rest.
 */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { cairnGroup } from '../../src/apis/cairn/register.js';
import { eventually } from '../support/eventually.js';
import { inProcessApp } from '../support/in-process-app.js';

const pipelines = '/apis/cairn.dev/v1/namespaces/stuck/pipelines';
const count = 80;
// 80 events of ~200 KiB: 16 MiB, more than loopback's socket buffers hold for a client that does not read.
const padding = 'x'.repeat(200 * 1024);

interface RawWatch {
  readonly response: http.IncomingMessage;
  /** Event lines read so far, parsed. */
  readonly events: Array<{ type: string; object: any }>;
  /** Resolves true when the server ended the stream cleanly, false when it was cut. */
  readonly ended: Promise<boolean>;
}

/** Opens a watch; its body is read only once `resume()` is called on the response (it starts paused). */
function openRawWatch(url: string): Promise<RawWatch> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, (response) => {
      response.pause();
      const events: Array<{ type: string; object: any }> = [];
      let pending = '';
      response.setEncoding('utf8').on('data', (chunk: string) => {
        pending += chunk;
        const lines = pending.split('\n');
        pending = lines.pop()!;
        for (const line of lines) if (line) events.push(JSON.parse(line));
      });
      const ended = new Promise<boolean>((done) => {
        response.once('end', () => done(true));
        response.once('aborted', () => done(false));
        response.once('error', () => done(false));
      });
      resolve({ response, events, ended });
    });
    req.on('error', reject);
  });
}

describe('an unresponsive watcher', () => {
  // Long enough that the reading watcher, in this process beside 200 KiB writes on a loaded machine, is never taken for stuck.
  const app = inProcessApp([cairnGroup], { unresponsiveWatcherTimeoutMs: 2_000 });

  it('is ended while the others get every event, and resumes from its last event', async () => {
    const from = (await app().request('GET', pipelines)).json.metadata.resourceVersion;
    const watchUrl = `${app().url}${pipelines}?watch=true&resourceVersion=${from}`;
    const stuck = await openRawWatch(watchUrl);
    const reader = await openRawWatch(watchUrl);
    reader.response.resume();
    const written: string[] = [];
    for (let i = 0; i < count; i++) {
      const body = { apiVersion: 'cairn.dev/v1', kind: 'Pipeline', metadata: { name: `p${i}`, annotations: { padding } }, spec: {} };
      const created = await app().request('POST', pipelines, { body });
      expect(created.status, created.text).toBe(201);
      written.push(created.json.metadata.resourceVersion);
    }
    // The reader was never held up by the stuck watcher.
    await eventually('the reader has every event', 20_000, async () => reader.events.length === count);
    expect(reader.events.map((e) => e.object.metadata.resourceVersion)).toEqual(written);

    // The server ends the stuck watch: only the reader's is still long-running.
    const watches = () =>
      app()
        .request('GET', '/metrics')
        .then((res) => /^apiserver_longrunning_requests\{verb="WATCH".*\} (\d+)$/m.exec(res.text)?.[1]);
    await eventually('the stuck watch ends', 20_000, async () => (await watches()) === '1');
    stuck.response.resume();
    expect(await stuck.ended).toBe(true);
    const got = stuck.events.map((e) => e.object.metadata.resourceVersion);
    expect(got.length).toBeLessThan(count);
    expect(got).toEqual(written.slice(0, got.length));

    // Re-watching from the last event it read gets the rest, as a client's reflector does.
    const again = await openRawWatch(`${watchUrl.replace(/resourceVersion=\d+/, `resourceVersion=${got.at(-1) ?? from}`)}&timeoutSeconds=5`);
    again.response.resume();
    await eventually('the re-watch has the rest', 20_000, async () => again.events.length === count - got.length);
    expect(again.events.map((e) => e.object.metadata.resourceVersion)).toEqual(written.slice(got.length));
    again.response.destroy();
    reader.response.destroy();
  });
});
