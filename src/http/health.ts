/**
 * `/healthz`, `/livez` and `/readyz` as k8s.io/apiserver's healthz package answers them,
 * so probes, `kubectl get --raw '/readyz?verbose'` and scripts written for kube-apiserver
 * read Cairn alike: `ok`, or with `?verbose` one `[+]name ok` / `[-]name failed: reason
 * withheld` line per check; `?exclude=name` (repeatable) skips a check, and a name that
 * matches none is warned about; any failure answers 500 with the verbose body. Each check
 * also answers alone at `/<endpoint>/<name>`, with its reason, as kube's do. Each result is
 * reported to an observer, as kube's handlers record `kubernetes_healthcheck`, so what the
 * probes found is on `/metrics` for alerts.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';

/**
 * A named health check, as kube's `HealthChecker`: undefined when healthy, else why not
 * (kube's error); a check that throws fails with the thrown message.
 */
export interface HealthCheck {
  readonly name: string;
  readonly check: () => string | undefined | Promise<string | undefined>;
}

/** Told the result of every check a health endpoint ran: kube's `ObserveHealthcheck`. */
export type HealthObserver = (endpoint: string, name: string, healthy: boolean) => void;

/** What a health endpoint answers. */
export interface HealthAnswer {
  readonly status: 200 | 500;
  readonly body: string;
}

async function failure(check: HealthCheck): Promise<string | undefined> {
  try {
    return await check.check();
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** kube's `formatQuoted`: `"a","b"`. */
function quoted(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(',');
}

/**
 * The answer of `/<endpoint>` over `checks`, after kube's `handleRootHealth`: checks run
 * together (a slow database ping does not hold the others up), lines keep the checks' order.
 */
export async function rootHealth(
  endpoint: string,
  checks: readonly HealthCheck[],
  query: URLSearchParams,
  observe: HealthObserver = () => undefined,
): Promise<HealthAnswer> {
  const excluded = new Set(query.getAll('exclude'));
  const lines = await Promise.all(
    checks.map(async (check) => {
      if (excluded.delete(check.name)) return { line: `[+]${check.name} excluded: ok`, failed: false };
      // The reason is withheld: these endpoints are public; `/<endpoint>/<name>` is authorized and tells it.
      const failed = (await failure(check)) !== undefined;
      observe(endpoint, check.name, !failed);
      return { line: failed ? `[-]${check.name} failed: reason withheld` : `[+]${check.name} ok`, failed };
    }),
  );
  const output = lines.map(({ line }) => `${line}\n`).join('');
  // The names left matched no check; kube lists them sorted.
  const warning = excluded.size > 0 ? `warn: some health checks cannot be excluded: no matches for ${quoted([...excluded].sort())}\n` : '';
  if (lines.some(({ failed }) => failed)) return { status: 500, body: `${output}${warning}${endpoint} check failed\n` };
  return { status: 200, body: query.has('verbose') ? `${output}${warning}${endpoint} check passed\n` : 'ok' };
}

/** The answer of `/<endpoint>/<name>`, after kube's `adaptCheckToHandler`: the reason is told. */
export async function singleHealth(endpoint: string, check: HealthCheck, observe: HealthObserver = () => undefined): Promise<HealthAnswer> {
  const reason = await failure(check);
  observe(endpoint, check.name, reason === undefined);
  return reason === undefined ? { status: 200, body: 'ok' } : { status: 500, body: `internal server error: ${reason}\n` };
}

function answer(ctx: Context, { status, body }: HealthAnswer): void {
  ctx.status = status;
  ctx.set('Cache-Control', 'no-cache, private');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = 'text/plain; charset=utf-8';
  ctx.body = body;
}

/**
 * Routes `/<endpoint>` and, as kube installs one path per check, `/<endpoint>/<name>` for
 * each check (names such as `poststarthook/storage-ready` hold a slash).
 */
export function routeHealth(router: Router, endpoint: string, checks: readonly HealthCheck[], observe?: HealthObserver): void {
  router.get(`/${endpoint}`, async (ctx) => answer(ctx, await rootHealth(endpoint, checks, new URLSearchParams(ctx.querystring), observe)));
  for (const check of checks) router.get(`/${endpoint}/${check.name}`, async (ctx) => answer(ctx, await singleHealth(endpoint, check, observe)));
}
