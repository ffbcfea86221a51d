/**
 * `/healthz`, `/livez` and `/readyz` as kube-apiserver answers them: `ok`, or with
 * `?verbose` one `[+]name ok` / `[-]name failed: reason withheld` line per check;
 * `/readyz/<check>` for one check; `?exclude=<check>` to skip some.
 */
import type { Context } from 'koa';

/** A named health check; it throws or returns false when unhealthy. */
export interface HealthCheck {
  readonly name: string;
  readonly check: () => boolean | Promise<boolean>;
}

async function passes(check: HealthCheck): Promise<boolean> {
  try {
    return await check.check();
  } catch {
    return false;
  }
}

/** Answers a health endpoint made of `checks`; `only` selects one check (`/readyz/<name>`). */
export async function answerHealth(ctx: Context, endpoint: string, checks: readonly HealthCheck[], only?: string): Promise<void> {
  const query = new URLSearchParams(ctx.querystring);
  const excluded = new Set(query.getAll('exclude'));
  let selected = checks.filter((c) => !excluded.has(c.name));
  if (only !== undefined) {
    selected = checks.filter((c) => c.name === only);
    if (selected.length === 0) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = '404 page not found\n';
      return;
    }
  }
  const results = await Promise.all(selected.map(async (c) => ({ name: c.name, ok: await passes(c) })));
  const healthy = results.every((r) => r.ok);
  ctx.set('Cache-Control', 'no-cache, private');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.type = 'text/plain; charset=utf-8';
  const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: reason withheld`));
  if (healthy) {
    ctx.status = 200;
    ctx.body = query.has('verbose') ? `${lines.join('\n')}\n${endpoint} check passed\n` : 'ok';
  } else {
    ctx.status = 500;
    ctx.body = `${lines.join('\n')}\n${endpoint} check failed\n`;
  }
}
