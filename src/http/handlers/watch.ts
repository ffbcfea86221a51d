/** GET of a collection with `watch=true`, or under the legacy `/watch/` prefix. */
import { randomInt } from 'node:crypto';
import { internal } from '../../machinery/errors.js';
import { isStatusError } from '../../machinery/status.js';
import { allowWatchBookmarksParam, listOptions } from '../request/list-options.js';
import { WatchStream } from '../streaming/watch-stream.js';
import type { ResourceContext } from './resource-context.js';

// kube-apiserver's default: a random timeout in [minRequestTimeout, 2 × minRequestTimeout], 1800 s.
const minRequestTimeoutSeconds = 1800;

/** The annotation of the bookmark that ends a watch's initial events (`sendInitialEvents=true`). */
const initialEventsEndAnnotation = 'k8s.io/initial-events-end';

/** Answers `watch`: the stream ends at `timeoutSeconds`, when the client leaves, or at shutdown. */
export async function watchHandler(rc: ResourceContext): Promise<void> {
  const options = listOptions(rc.query, rc.scope, true, rc.request.name);
  const timeoutSeconds = options.timeoutSeconds ?? minRequestTimeoutSeconds + randomInt(minRequestTimeoutSeconds);
  const bookmarks = allowWatchBookmarksParam(rc.query);
  // Starting the watch before answering lets a 410 or 400 go out as a plain Status.
  const { initial, initialEventsEnd, watcher } = await rc.storages.store.watch(rc.request.namespace, {
    ...options,
    bookmarkIntervalMs: bookmarks ? rc.bookmarkIntervalMs : undefined,
  });
  rc.ctx.respond = false;
  const stream = new WatchStream(rc.ctx.res);
  stream.open();
  // Node's timers hold at most 2^31 - 1 ms (24.8 days); a longer timeout would fire at once.
  const timer = setTimeout(() => watcher.stop(), Math.min(timeoutSeconds * 1000, 2 ** 31 - 1));
  const stop = (): void => watcher.stop();
  rc.shutdown.addEventListener('abort', stop, { once: true });
  void stream.closed.then(stop);
  const representation = rc.representation;
  try {
    for (const object of initial) await stream.send({ type: 'ADDED', object: representation.watchObject(rc.scope.fromStorage(object)) });
    if (initialEventsEnd !== undefined && bookmarks) {
      await stream.send({ type: 'BOOKMARK', object: representation.bookmark(initialEventsEnd, { [initialEventsEndAnnotation]: 'true' }) });
    }
    for await (const event of watcher) {
      if (event.type === 'BOOKMARK') await stream.send({ type: 'BOOKMARK', object: representation.bookmark(event.resourceVersion) });
      else await stream.send({ type: event.type, object: representation.watchObject(rc.scope.fromStorage(event.object)) });
    }
  } catch (error) {
    await stream.sendError(isStatusError(error) ? error.status : internal('the watch failed').status);
  } finally {
    clearTimeout(timer);
    rc.shutdown.removeEventListener('abort', stop);
    watcher.stop();
    stream.end();
  }
}
