/** DELETE of a collection: what the namespace controller calls when a namespace goes. */
import type { CollectionDeleter, Lister } from '../../registry/endpoint-rest.js';
import { deleteValidation } from './admission.js';
import { listOptions } from '../request/list-options.js';
import { readDeleteOptions } from './delete.js';
import { writeOrigin, type ResourceContext } from './resource-context.js';
import { answerWholeList, listChunk } from './whole-list.js';

/**
 * Answers `deletecollection` with the list of what it deleted (or marked for deletion),
 * as listed before; the selection is checked first, as in kube. It deletes and answers a
 * chunk at a time: a deletion refused in the first chunk is the answer's Status, one
 * refused later cuts the list short.
 */
export async function deleteCollectionHandler(rc: ResourceContext, rest: CollectionDeleter & Lister): Promise<void> {
  const selection = listOptions(rc.query, rc.scope, false);
  const options = await readDeleteOptions(rc);
  const deleted = rest.deleteCollection(rc.namespace, selection, options, deleteValidation(rc, options.dryRun), listChunk, writeOrigin(rc, 'delete'));
  await answerWholeList(rc, rest, selection, deleted);
}
