/** GET of a collection. */
import type { ListOptions } from '../../registry/request-options.js';
import { auditsResponseObject } from '../filters/audit-context.js';
import { listOptions } from '../request/list-options.js';
import { respond } from '../response/respond.js';
import { ListStream } from '../streaming/list-stream.js';
import type { ResourceContext } from './resource-context.js';

/** How many objects a whole list reads and writes at a time. */
const listChunk = 500;

/** Answers `list`: one page, with `continue` and `remainingItemCount` when more follow. */
export async function listHandler(rc: ResourceContext): Promise<void> {
  const options = listOptions(rc.query, rc.scope, false);
  // A list audited with its response is answered whole, so the audit event holds it.
  if (options.limit === undefined && !options.continue && rc.output.format === 'json' && !rc.output.transform && !auditsResponseObject(rc.ctx))
    return streamList(rc, options);
  const page = await rc.storages.store.list(rc.request.namespace, options);
  const listMeta = {
    resourceVersion: page.resourceVersion,
    ...(page.continue !== undefined ? { continue: page.continue } : {}),
    ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
  };
  respond(rc.ctx, 200, rc.representation.list(page.items.map(rc.scope.fromStorage), listMeta), rc.output.format);
}

/**
 * A whole list in JSON, read from one snapshot a chunk at a time and written as it is
 * read. The first chunk is read before anything is sent, so what refuses the list (410,
 * 504) is still a Status; a later failure cuts the response rather than end it as a
 * shorter list.
 */
async function streamList(rc: ResourceContext, options: ListOptions): Promise<void> {
  const pages = rc.storages.store.listInChunks(rc.request.namespace, options, listChunk);
  const first = await pages.next();
  if (first.done) throw new Error('a list yields at least one page');
  rc.ctx.respond = false;
  const stream = new ListStream(rc.ctx.res);
  try {
    await stream.open(rc.scope.apiVersion, rc.resource.listKind, { resourceVersion: first.value.resourceVersion });
    await stream.write(first.value.items.map(rc.scope.fromStorage));
    for await (const page of pages) await stream.write(page.items.map(rc.scope.fromStorage));
    await stream.end();
  } catch (error) {
    stream.abort();
    throw error;
  }
}
