/**
 * What a served endpoint is to those that describe it rather than serve it (OpenAPI, the
 * webhook rules' matcher): the registry's endpoint table produces these, so a document or a
 * rule names exactly the endpoints and verbs that are served. Its scope is its resource's.
 */
import type { GroupVersionKind } from '../machinery/meta/group-version-kind.js';
import type { ApiResource } from './api-resource.js';

/** One served `(group, version, resource, subresource)`, as discovery shows it. */
export interface ApiEndpoint {
  readonly group: string;
  readonly version: string;
  /** The resource, which holds the scope (`namespaced`). */
  readonly resource: ApiResource;
  /** `''` for the resource itself. */
  readonly subresource: string;
  /** Other names discovery lists the subresource under (`logs` for `log`), which requests are canonicalised from. */
  readonly aliases: readonly string[];
  /** What the endpoint's objects are (autoscaling/v1 Scale for `scale`). */
  readonly kind: GroupVersionKind;
  /** The verbs it serves, sorted. */
  readonly verbs: readonly string[];
}
