/** GET of a collection. */
import { listOptions } from '../list-options.js';
import { respond } from '../respond.js';
import type { ResourceContext } from './resource-context.js';

/** Answers `list`: one page, with `continue` and `remainingItemCount` when more follow. */
export async function listHandler(rc: ResourceContext): Promise<void> {
  const page = await rc.store.list(rc.request.namespace, listOptions(rc.query, rc.resource, false));
  const listMeta = {
    resourceVersion: page.resourceVersion,
    ...(page.continue !== undefined ? { continue: page.continue } : {}),
    ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
  };
  respond(rc.ctx, 200, rc.representation.list(page.items, listMeta), rc.output.format);
}
