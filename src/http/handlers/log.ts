/** GET of an object's log (`log`, alias `logs`): text/plain, kept open with `follow`. */
import { logOptions } from '../request/log-options.js';
import { LogWriter } from '../streaming/log-writer.js';
import { ResponseStream } from '../streaming/response-stream.js';
import type { LogStreamer } from '../../registry/endpoint-rest.js';
import { keyOf, type ResourceContext } from './resource-context.js';

/**
 * Answers a log read. Errors go out as a Status before the first byte; the stream
 * ends at the end of the log, at `limitBytes`, and with `follow` when the object is
 * deleted, the client leaves, or the server shuts down.
 */
export async function logHandler(rc: ResourceContext, rest: LogStreamer): Promise<void> {
  const options = logOptions(rc.query, rest.streamParameter);
  const reader = await rest.open(keyOf(rc), options);
  const stop = (): void => reader.stop();
  rc.shutdown.addEventListener('abort', stop, { once: true });
  if (rc.shutdown.aborted) stop();
  try {
    rc.ctx.respond = false;
    const stream = new ResponseStream(rc.ctx.res);
    void stream.closed.then(stop);
    stream.open('text/plain; charset=utf-8');
    const writer = new LogWriter(stream, options);
    try {
      for await (const page of reader) {
        if (!(await writer.write(page))) break;
      }
      stream.end();
    } catch (error) {
      // The 200 is out: only a cut stream can tell the client its log is incomplete.
      stream.abort();
      throw error;
    }
  } finally {
    rc.shutdown.removeEventListener('abort', stop);
    reader.stop();
  }
}
