/** GET of a collection. */
import type { ListOptions } from '../../registry/request-options.js';
import type { ListPage } from '../../registry/store.js';
import { auditsResponseObject } from '../filters/audit-context.js';
import { listOptions } from '../request/list-options.js';
import { respond } from '../response/respond.js';
import { jsonListHead, jsonListTail, ListStream } from '../streaming/list-stream.js';
import type { ResourceContext } from './resource-context.js';

/** How many objects a whole list reads and writes at a time. */
const listChunk = 500;

/** The list's metadata as a page gives it. */
const listMetaOf = (page: ListPage<unknown>) => ({
  resourceVersion: page.resourceVersion,
  ...(page.continue !== undefined ? { continue: page.continue } : {}),
  ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
});

/**
 * Answers `list`: one page, with `continue` and `remainingItemCount` when more follow,
 * or, without `limit`, the whole list streamed a chunk at a time. A plain JSON list in
 * the storage version is written from the objects' stored JSON text, never parsed and
 * serialized again (storage's `listJson`).
 */
export async function listHandler(rc: ResourceContext): Promise<void> {
  const options = listOptions(rc.query, rc.scope, false);
  // A list audited with its response is answered whole, so the audit event holds it.
  const plainJson = rc.output.format === 'json' && !rc.output.transform && !auditsResponseObject(rc.ctx);
  const whole = options.limit === undefined && !options.continue;
  const stored = rc.scope.version === rc.resource.storageVersion;
  if (plainJson && whole) return streamList(rc, options, stored);
  if (plainJson && stored) {
    const page = await rc.storages.store.listJson(rc.request.namespace, options);
    rc.ctx.status = 200;
    rc.ctx.type = 'application/json';
    rc.ctx.body = `${jsonListHead(rc.scope.apiVersion, rc.resource.listKind, listMetaOf(page))}${page.items.join(',')}${jsonListTail}`;
    return;
  }
  const page = await rc.storages.store.list(rc.request.namespace, options);
  respond(rc.ctx, 200, rc.representation.list(page.items.map(rc.scope.fromStorage), listMetaOf(page)), rc.output.format);
}

/**
 * A whole list in JSON, read from one snapshot a chunk at a time and written as it is
 * read (in the storage version, as the objects' stored text). The first chunk is read
 * before anything is sent, so what refuses the list (410, 504) is still a Status; a
 * later failure cuts the response rather than end it as a shorter list.
 */
async function streamList(rc: ResourceContext, options: ListOptions, stored: boolean): Promise<void> {
  const store = rc.storages.store;
  const pages: AsyncGenerator<ListPage<string>> = stored
    ? store.listJsonInChunks(rc.request.namespace, options, listChunk)
    : mapPages(store.listInChunks(rc.request.namespace, options, listChunk), (item) => JSON.stringify(rc.scope.fromStorage(item)));
  const first = await pages.next();
  if (first.done) throw new Error('a list yields at least one page');
  rc.ctx.respond = false;
  const stream = new ListStream(rc.ctx.res);
  try {
    await stream.open(rc.scope.apiVersion, rc.resource.listKind, { resourceVersion: first.value.resourceVersion });
    await stream.writeJson(first.value.items);
    for await (const page of pages) await stream.writeJson(page.items);
    await stream.end();
  } catch (error) {
    stream.abort();
    throw error;
  }
}

/** The pages of `pages`, each item made another by `item`. */
async function* mapPages<From, To>(pages: AsyncGenerator<ListPage<From>>, item: (from: From) => To): AsyncGenerator<ListPage<To>> {
  for await (const page of pages) yield { ...page, items: page.items.map(item) };
}
