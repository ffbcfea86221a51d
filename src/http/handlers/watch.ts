/** GET of a collection with `watch=true`, or under the legacy `/watch/` prefix. */
import { randomInt } from 'node:crypto';
import { internal } from '../../machinery/errors.js';
import { isStatusError } from '../../machinery/status.js';
import { allowWatchBookmarksParam, listOptions } from '../request/list-options.js';
import { serializerOf } from '../serializers/serializers.js';
import { WatchEncoder, type Frame } from '../streaming/watch-encoder.js';
import { ResponseStream } from '../streaming/response-stream.js';
import type { Watcher } from '../../registry/endpoint-rest.js';
import type { ResourceContext } from './resource-context.js';

// kube-apiserver's default: a random timeout in [minRequestTimeout, 2 × minRequestTimeout], 1800 s.
const minRequestTimeoutSeconds = 1800;

/** The annotation of the bookmark that ends a watch's initial events (`sendInitialEvents=true`). */
const initialEventsEndAnnotation = 'k8s.io/initial-events-end';

/** Answers `watch`: the stream ends at `timeoutSeconds`, when the client leaves, or at shutdown. */
export async function watchHandler(rc: ResourceContext, rest: Watcher): Promise<void> {
  const options = listOptions(rc.query, rc.scope, true, rc.name);
  const timeoutSeconds = options.timeoutSeconds ?? minRequestTimeoutSeconds + randomInt(minRequestTimeoutSeconds);
  const bookmarks = allowWatchBookmarksParam(rc.query);
  const encoder = new WatchEncoder(rc.scope.apiVersion, rc.representation, serializerOf(rc.output.format));
  // Starting the watch before answering lets a 410 or 400 go out as a plain Status.
  const { initial, initialEventsEnd, watcher } = await rest.watch(rc.namespace, {
    ...options,
    bookmarkIntervalMs: bookmarks ? rc.bookmarkIntervalMs : undefined,
  });
  rc.ctx.respond = false;
  const stream = new ResponseStream(rc.ctx.res);
  stream.open(encoder.mediaType);
  const record = rc.watchEvents.forWatch(rc.resource.group, rc.scope.version, rc.scope.kind);
  /** Sends a frame (sent at once with `flush`); false (at once or later) when the client did not take it in time and the watch must end. */
  const send = (frame: Frame, flush = true): true | Promise<boolean> => {
    record(typeof frame === 'string' ? Buffer.byteLength(frame) : frame.byteLength);
    return stream.write(frame, rc.unresponsiveWatcherTimeoutMs, flush);
  };
  // Node's timers hold at most 2^31 - 1 ms (24.8 days); a longer timeout would fire at once.
  const timer = setTimeout(() => watcher.stop(), Math.min(timeoutSeconds * 1000, 2 ** 31 - 1));
  const stop = (): void => watcher.stop();
  rc.shutdown.addEventListener('abort', stop, { once: true });
  void stream.closed.then(stop);
  try {
    // The initial objects go out as Node sends them, a page's worth per write.
    for await (const object of initial) if (!(await send(encoder.objectEvent('ADDED', object), false))) return;
    if (initialEventsEnd !== undefined && bookmarks) {
      if (!(await send(encoder.bookmark(initialEventsEnd, { [initialEventsEndAnnotation]: 'true' })))) return;
    }
    // The watch cache hands every watcher the same object: what is made of it for this watch is made once for all alike.
    for await (const event of watcher) {
      const frame = event.type === 'BOOKMARK' ? encoder.bookmark(event.resourceVersion) : encoder.sharedObjectEvent(event.type, event.object);
      // A client that stops reading is cut off, as kube's cacher ends an unresponsive watcher: it re-watches from
      // the last event it read, and meanwhile holds no more than one event beyond the socket's buffers.
      // Flushed once no further event is at hand: a batch of events leaves in one write.
      const sent = send(frame, !watcher.pending());
      if (sent !== true && !(await sent)) return;
    }
  } catch (error) {
    await stream.write(encoder.error(isStatusError(error) ? error.status : internal('the watch failed').status), rc.unresponsiveWatcherTimeoutMs);
  } finally {
    clearTimeout(timer);
    rc.shutdown.removeEventListener('abort', stop);
    watcher.stop();
    stream.end();
  }
}
