/** PATCH of one object, with JSON Patch or JSON Merge Patch. */
import { unsupportedMediaType } from '../../machinery/errors.js';
import { applyJsonPatch, applyMergePatch, patchTypes } from '../../machinery/patch.js';
import { decodeBody, mediaType } from '../negotiation.js';
import { readWrite } from './decode-object.js';
import { addWarnings } from '../respond.js';
import { namespaceOf, respondObject, subresourceOf, type ResourceContext } from './resource-context.js';

const supported = [patchTypes.json, patchTypes.merge] as const;

/** Answers `patch`: the patch applies to the current object inside the update's lock. */
export async function patchHandler(rc: ResourceContext): Promise<void> {
  const type = mediaType(rc.ctx.get('Content-Type'));
  if (!(supported as readonly string[]).includes(type)) throw unsupportedMediaType(type, supported);
  // Both patch types are JSON documents.
  const { value: patch, options } = await readWrite(rc, (raw) => decodeBody(raw, 'application/json', ['application/json']));
  const apply = type === patchTypes.json ? applyJsonPatch : applyMergePatch;
  const { object, warnings } = await rc.store.patch(
    { namespace: namespaceOf(rc), name: rc.request.name! },
    (current) => apply(current, patch),
    options,
    subresourceOf(rc),
  );
  addWarnings(rc.ctx, warnings);
  respondObject(rc, 200, object);
}
