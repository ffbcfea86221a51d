/** GET of a collection with `watch=true`. */
import { randomInt } from 'node:crypto';
import { internal } from '../../machinery/errors.js';
import { isStatusError } from '../../machinery/status.js';
import { fieldSelectorParam, integerParam, labelSelectorParam, resourceVersionParam } from '../query.js';
import { WatchStream } from '../watch-stream.js';
import { selectableFields } from './list.js';
import type { ResourceContext } from './resource-context.js';

// kube-apiserver's default: a random timeout in [minRequestTimeout, 2 × minRequestTimeout], 1800 s.
const minRequestTimeoutSeconds = 1800;

/** Answers `watch`: the stream ends at `timeoutSeconds`, when the client leaves, or at shutdown. */
export async function watchHandler(rc: ResourceContext): Promise<void> {
  const timeoutSeconds = integerParam(rc.query, 'timeoutSeconds') ?? minRequestTimeoutSeconds + randomInt(minRequestTimeoutSeconds);
  // Starting the watch before answering lets a 410 or 400 go out as a plain Status.
  const { initial, watcher } = await rc.store.watch(rc.request.namespace, {
    labelSelector: labelSelectorParam(rc.query),
    fieldSelector: fieldSelectorParam(rc.query, selectableFields(rc)),
    resourceVersion: resourceVersionParam(rc.query),
  });
  rc.ctx.respond = false;
  const stream = new WatchStream(rc.ctx.res);
  stream.open();
  const timer = setTimeout(() => watcher.stop(), timeoutSeconds * 1000);
  const stop = (): void => watcher.stop();
  rc.shutdown.addEventListener('abort', stop, { once: true });
  void stream.closed.then(stop);
  try {
    for (const object of initial) await stream.send({ type: 'ADDED', object });
    for await (const event of watcher) {
      await stream.send({ type: event.type, object: event.object });
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
