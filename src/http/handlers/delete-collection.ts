/** DELETE of a collection: what the namespace controller calls when a namespace goes. */
import { deleteOptions } from '../delete-options.js';
import { listOptions } from '../list-options.js';
import { readBody } from '../read-body.js';
import { respond } from '../respond.js';
import type { ResourceContext } from './resource-context.js';

/** Answers `deletecollection` with the list of what was deleted (or marked for deletion). */
export async function deleteCollectionHandler(rc: ResourceContext): Promise<void> {
  const options = deleteOptions(await readBody(rc.ctx.req), rc.ctx.get('Content-Type'), rc.query);
  const selection = listOptions(rc.query, rc.resource, false);
  const deleted = await rc.store.deleteCollection(rc.request.namespace ?? '', selection, options);
  respond(rc.ctx, 200, rc.representation.list(deleted.items, { resourceVersion: deleted.resourceVersion }), rc.output.format);
}
