/** GET of a collection. */
import type { ListPage } from '../../registry/store.js';
import { auditsResponseObject } from '../filters/audit-context.js';
import { listOptions } from '../request/list-options.js';
import { respond } from '../response/respond.js';
import { jsonListEncoder } from '../serializers/json-serializer.js';
import type { ResourceContext } from './resource-context.js';
import { answerWholeList, answerWholeStoredJson, listChunk } from './whole-list.js';

/** The list's metadata as a page gives it. */
const listMetaOf = (page: Pick<ListPage<unknown>, 'resourceVersion' | 'continue' | 'remainingItemCount'>) => ({
  resourceVersion: page.resourceVersion,
  ...(page.continue !== undefined ? { continue: page.continue } : {}),
  ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
});

/**
 * Answers `list`: one page, with `continue` and `remainingItemCount` when more follow,
 * or, without `limit`, the whole list, read and written a chunk at a time in every
 * format and representation. A plain JSON list in the storage version is written from
 * the objects' stored JSON text, never parsed and serialized again (storage's `listJson`).
 */
export async function listHandler(rc: ResourceContext): Promise<void> {
  const options = listOptions(rc.query, rc.scope, false);
  // A list audited with its response object is read as objects, so the audit event can hold them.
  const storedJson = rc.output.format === 'json' && !rc.output.transform && rc.scope.version === rc.resource.storageVersion && !auditsResponseObject(rc.ctx);
  const whole = options.limit === undefined && !options.continue;
  if (whole) {
    const store = rc.storages.store;
    const namespace = rc.request.namespace;
    return storedJson
      ? answerWholeStoredJson(rc, store.listJsonInChunks(namespace, options, listChunk))
      : answerWholeList(rc, options, store.listInChunks(namespace, options, listChunk));
  }
  if (storedJson) {
    const page = await rc.storages.store.listJson(rc.request.namespace, options);
    return answerStoredJson(rc, page.items, listMetaOf(page));
  }
  const page = await rc.storages.store.list(rc.request.namespace, options);
  respond(rc.ctx, 200, rc.representation.list(page.items.map(rc.scope.fromStorage), listMetaOf(page)), rc.output.format);
}

/** A list of objects' stored JSON text. */
function answerStoredJson(rc: ResourceContext, items: readonly string[], listMeta: ReturnType<typeof listMetaOf>): void {
  const encoder = jsonListEncoder(rc.representation.listParts(listMeta).envelope, 'items', true);
  rc.ctx.status = 200;
  rc.ctx.type = 'application/json';
  rc.ctx.body = `${encoder.head() as string}${encoder.items(items, true) as string}${encoder.tail as string}`;
}
