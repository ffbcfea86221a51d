/** DELETE of a collection: what the namespace controller calls when a namespace goes. */
import { deleteValidation } from './admission.js';
import { listOptions } from '../request/list-options.js';
import { respond } from '../response/respond.js';
import { readDeleteOptions } from './delete.js';
import type { ResourceContext } from './resource-context.js';

/** Answers `deletecollection` with the list of what it deleted (or marked for deletion), as listed before; the selection is checked first, as in kube. */
export async function deleteCollectionHandler(rc: ResourceContext): Promise<void> {
  const selection = listOptions(rc.query, rc.scope, false);
  const options = await readDeleteOptions(rc);
  const deleted = await rc.storages.store.deleteCollection(rc.request.namespace ?? '', selection, options, deleteValidation(rc, options.dryRun));
  respond(rc.ctx, 200, rc.representation.list(deleted.items.map(rc.scope.fromStorage), { resourceVersion: deleted.resourceVersion }), rc.output.format);
}
