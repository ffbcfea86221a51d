/**
 * `--workers N`: how many processes serve the one listening port. Undefined means the
 * default, the cores this process may use (`cpu-limit.ts`), which the command works out
 * only when it starts a server.
 */
import { count, FlagError, stringFlag, type ConcernOptions } from './flags.js';

/** What the workers flag says. */
export interface WorkersOptions {
  /** `--workers`/`WORKERS`; undefined: as many as the cores this process may use. */
  readonly workers?: number;
}

export const workersOptions = {
  flags: {
    workers: { type: 'string', usage: '[--workers N]' },
  },
  environment: ['WORKERS'],

  parse(values, env) {
    const text = stringFlag(values, 'workers') ?? (env.WORKERS || undefined);
    if (text === undefined) return {};
    const workers = count('workers', text, 1);
    if (workers < 1) throw new FlagError(`--workers ${workers}: at least one process serves`);
    return { workers };
  },
} satisfies ConcernOptions<WorkersOptions>;
