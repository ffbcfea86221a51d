/** POST to a collection. */
import { methodNotAllowed } from '../../machinery/errors.js';
import { addWarnings } from '../response/respond.js';
import { admit, validations } from './admission.js';
import { decodeObject } from './decode-object.js';
import { namespaceOf, respondObject, type ResourceContext } from './resource-context.js';

/** Answers `create` with 201 and the stored object. */
export async function createHandler(rc: ResourceContext): Promise<void> {
  const { rest } = rc.scope;
  if (!rest.create) throw methodNotAllowed();
  const { object, warnings, options, manager } = await decodeObject(rc, 'CreateOptions');
  const { createValidation } = validations(rc, options.dryRun);
  const created = await rest.create(namespaceOf(rc), await admit(rc, object, undefined, options.dryRun), createValidation, { dryRun: options.dryRun, manager });
  addWarnings(rc.ctx, warnings);
  respondObject(rc, 201, created);
}
