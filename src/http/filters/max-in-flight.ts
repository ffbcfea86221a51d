/**
 * kube-apiserver's `WithMaxInFlightLimit` (`--max-requests-inflight`,
 * `--max-mutating-requests-inflight`): requests being served are counted by kind, reads
 * (get, list) and everything else; past a kind's limit a request is refused with 429 and
 * `Retry-After: 1`. Long-running requests (watches, logs) are not counted; neither are
 * the health probes, which kube-apiserver's default flow control exempts (its `probes`
 * FlowSchema) so that a busy server is not restarted by its kubelet. A `system:masters`
 * user is served even past the limit, as kube serves it. A limit of 0 is no limit.
 */
import type { Context, Next } from 'koa';
import { tooManyRequests } from '../../machinery/errors.js';
import { isLongRunning } from '../request/request-info.js';
import { userOf } from './authentication.js';
import { requestInfoOf } from './request-info.js';

/** The kinds kube counts apart, as `apiserver_current_inflight_requests` labels them. */
export type RequestKind = 'readOnly' | 'mutating';

/** How many requests of each kind may be served at once; 0 for no limit. */
export type InFlightLimits = Readonly<Record<RequestKind, number>>;

/** kube-apiserver's defaults. */
export const defaultInFlightLimits: InFlightLimits = Object.freeze({ readOnly: 400, mutating: 200 });

/** kube's `nonMutatingRequestVerbs` (watches are long-running, so never counted here). */
const readOnlyVerbs: ReadonlySet<string> = new Set(['get', 'list', 'watch']);

/** The paths of kube's `probes` FlowSchema, exempt for GET. */
const probePaths: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/livez']);

/** kube's `user.SystemPrivilegedGroup`. */
const privilegedGroup = 'system:masters';

/**
 * Counts and limits the requests in flight; `report` hears each kind's count when it
 * changes. kube answers its 429 as plain text; Cairn answers a Status, as every other
 * 4xx, with kube's message (client-go retries on the code and `Retry-After` alike).
 */
export function withMaxInFlightLimit(limits: InFlightLimits, report: (kind: RequestKind, count: number) => void) {
  const inFlight: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  return async (ctx: Context, next: Next): Promise<void> => {
    const info = requestInfoOf(ctx);
    if (isLongRunning(info) || (ctx.method === 'GET' && !info.isResourceRequest && probePaths.has(ctx.path))) {
      await next();
      return;
    }
    const kind: RequestKind = readOnlyVerbs.has(info.verb) ? 'readOnly' : 'mutating';
    const limit = limits[kind];
    if (limit > 0 && inFlight[kind] >= limit) {
      if (userOf(ctx).groups.includes(privilegedGroup)) {
        await next();
        return;
      }
      throw tooManyRequests(1);
    }
    report(kind, ++inFlight[kind]);
    try {
      await next();
    } finally {
      report(kind, --inFlight[kind]);
    }
  };
}
