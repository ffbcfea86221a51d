/**
 * The object of a PUT or PATCH checked against the URL, as kube's update and patch handlers
 * check it before the store sees it: its namespace (`rest.EnsureObjectNamespaceMatchesRequestNamespace`),
 * then its name (`checkName`). Both are 400s, before any validation's 422.
 */
import { badRequest } from '../../machinery/errors.js';
import type { KubeObject } from '../../machinery/meta/object.js';

/**
 * `object` with the namespace the request expects (`''` for a cluster-scoped kind): one left
 * out is filled in, one a cluster-scoped object carries is cleared, another is a 400. Then 400
 * unless it names the object of the URL, `name`.
 *
 * @example
 * checkObjectKey({ metadata: { name: 'b' } }, 'ns', 'a') // 400 `the name of the object (b) does not match the name on the URL (a)`
 */
export function checkObjectKey(object: KubeObject, namespace: string, name: string): KubeObject {
  const metadata = { ...object.metadata };
  const sent = metadata.namespace ?? '';
  if (sent !== namespace) {
    if (sent !== '' && namespace !== '') throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    if (namespace === '') delete metadata.namespace;
    else metadata.namespace = namespace;
  }
  const objectName = metadata.name ?? '';
  if (objectName === '') throw badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`);
  if (objectName !== name) throw badRequest(`the name of the object (${objectName}) does not match the name on the URL (${name})`);
  return { ...object, metadata };
}
