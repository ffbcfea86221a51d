/** GET of a collection. */
import { listOptions } from '../request/list-options.js';
import { respond } from '../response/respond.js';
import type { ResourceContext } from './resource-context.js';

/** Answers `list`: one page, with `continue` and `remainingItemCount` when more follow. */
export async function listHandler(rc: ResourceContext): Promise<void> {
  const page = await rc.storages.store.list(rc.request.namespace, listOptions(rc.query, rc.scope, false));
  const listMeta = {
    resourceVersion: page.resourceVersion,
    ...(page.continue !== undefined ? { continue: page.continue } : {}),
    ...(page.remainingItemCount !== undefined ? { remainingItemCount: page.remainingItemCount } : {}),
  };
  respond(rc.ctx, 200, rc.representation.list(page.items.map(rc.scope.fromStorage), listMeta), rc.output.format);
}
