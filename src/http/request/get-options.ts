/**
 * The options of a get, decoded from the query. kube's GetOptions has only
 * `resourceVersion` (not older than N); Cairn also takes `resourceVersionMatch=Exact`,
 * checked as a list's is (422 on `GetOptions.meta.k8s.io`), for the object exactly as
 * it was at N: its history inside the retention is readable as a list's is.
 */
import { invalid } from '../../machinery/errors.js';
import type { GetOptions, ResourceVersionMatch } from '../../registry/request-options.js';
import { matchErrors, matchParam } from './list-options.js';
import { resourceVersionParam, type Query } from './query.js';

/** Decodes and validates `resourceVersion` and `resourceVersionMatch`. */
export function getOptions(query: Query): GetOptions {
  const resourceVersion = resourceVersionParam(query);
  const match = matchParam(query);
  const errors = matchErrors({ resourceVersion, match });
  if (errors.length) throw invalid('GetOptions', 'meta.k8s.io', '', errors);
  if (resourceVersion === '') return {};
  return match === undefined ? { resourceVersion } : { resourceVersion, resourceVersionMatch: match as ResourceVersionMatch };
}
