/** GET of a collection. */
import type { Lister } from '../../registry/endpoint-rest.js';
import type { ListPage } from '../../registry/store.js';
import { auditsResponseObject } from '../filters/audit-context.js';
import { listOptions } from '../request/list-options.js';
import { respond } from './respond.js';
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
export async function listHandler(rc: ResourceContext, rest: Lister): Promise<void> {
  const options = listOptions(rc.query, rc.scope, false);
  // A list audited with its response object is read as objects, so the audit event can hold them.
  const storedJson =
    rc.output.format === 'json' && !rc.output.transform && rc.representation.inHubVersion && !auditsResponseObject(rc.ctx) ? rest.storedJson : undefined;
  const whole = options.limit === undefined && !options.continue;
  const namespace = rc.namespace;
  if (whole) {
    return storedJson
      ? answerWholeStoredJson(rc, storedJson.listInChunks(namespace, options, listChunk))
      : answerWholeList(rc, rest, options, rest.listInChunks(namespace, options, listChunk));
  }
  if (storedJson) {
    const page = await storedJson.list(namespace, options);
    return answerStoredJson(rc, page.items, listMetaOf(page));
  }
  const page = await rest.list(namespace, options);
  respond(rc.ctx, 200, rc.representation.list(page.items, listMetaOf(page)), rc.output.format);
}

/** A list of objects' stored JSON text. */
function answerStoredJson(rc: ResourceContext, items: readonly string[], listMeta: ReturnType<typeof listMetaOf>): void {
  const encoder = jsonListEncoder(rc.representation.listParts(listMeta).envelope, 'items', true);
  rc.ctx.status = 200;
  rc.ctx.type = 'application/json';
  rc.ctx.body = `${encoder.head() as string}${encoder.items(items, true) as string}${encoder.tail as string}`;
}
