/**
 * kube-apiserver's `log` health check, for pino: kube's fails when its log has stopped
 * flushing; Cairn's fails once the logger's destination is closed, when nothing the
 * server says about itself reaches its operator any more and a restart opens it anew.
 */
import { pino, type Logger } from 'pino';
import type { HealthCheck } from '../http/health.js';

/** What of a destination the check reads: SonicBoom and Node's writable streams both say it. */
interface Destination {
  readonly destroyed?: boolean;
}

/** The `log` check of `logger`'s destination. */
export function logCheck(logger: Logger): HealthCheck {
  const destination = (logger as unknown as Record<symbol, Destination | undefined>)[pino.symbols.streamSym];
  return { name: 'log', check: () => (destination?.destroyed === true ? "the log's destination is closed" : undefined) };
}
