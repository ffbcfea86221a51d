/**
 * Which requests are long-running, as kube-apiserver's `BasicLongRunningRequestCheck`
 * decides for the verbs and subresources it registers: watches, and reads of a log
 * (kube's `pods/log`, which may follow). They are exempt from the request timeout and
 * the in-flight limits, and counted in `apiserver_longrunning_requests` instead.
 */
import type { RequestInfo } from './request-info.js';

/**
 * Whether a request is long-running. Appending to a log (POST, Cairn's own) is an
 * ordinary write: it is timed out and counted as one.
 */
export function isLongRunning(info: RequestInfo | undefined): boolean {
  if (info?.isResourceRequest !== true) return false;
  return info.verb === 'watch' || (info.subresource === 'log' && info.verb === 'get');
}
