/**
 * A server's lifecycle, after k8s.io/apiserver's hooks: what starts once the listener
 * serves (post-start hooks, in order: storage, compaction, the controllers) and what
 * ends at shutdown, in kube's graceful order. Shutdown first drains (readyz fails while
 * everything is still served) and stops what the post-start hooks started, newest first;
 * after `--shutdown-delay` it shuts down (long-running requests end), runs the pre-shutdown
 * hooks in order, the last of which stops the listener; then the destroy functions run,
 * newest first, as deferred calls (the audit log's last events, then the database).
 * Beside the hooks, as kube's GenericAPIServer, the readiness checks the concerns add
 * (`database`, `informer-sync`); each post-start hook is one too (`poststarthook/<name>`),
 * failing until it has run, and `shutdown` fails from the moment shutdown begins.
 */
import type { HealthCheck } from '../http/health.js';

/** Undoes what a post-start hook started. */
export type Stop = () => Promise<void> | void;

/** Starts something once the server serves; what it returns stops it at shutdown. */
export type PostStartHook = () => Promise<Stop | void>;

/** Runs at shutdown once requests have had the shutdown delay to drain. */
export type ShutdownHook = () => Promise<void> | void;

interface Named<T> {
  readonly name: string;
  readonly run: T;
}

/** The hooks of one server, and the signals its parts watch. */
export class Lifecycle {
  readonly #draining = new AbortController();
  readonly #shutdown = new AbortController();
  readonly #postStart: Named<PostStartHook>[] = [];
  readonly #preShutdown: Named<ShutdownHook>[] = [];
  readonly #destroy: Named<ShutdownHook>[] = [];
  /** What the post-start hooks that ran started, oldest first. */
  readonly #stops: Stop[] = [];
  /** The names of the post-start hooks that have run. */
  readonly #completed = new Set<string>();
  readonly #readyzChecks: HealthCheck[] = [];

  /** Aborted when shutdown begins: readyz fails from then on. */
  get draining(): AbortSignal {
    return this.#draining.signal;
  }

  /** Aborted after the shutdown delay: long-running requests end, and nothing retries any more. */
  get shuttingDown(): AbortSignal {
    return this.#shutdown.signal;
  }

  /** Adds a hook run after the ones added before it; a name is used once, as kube's `AddPostStartHookOrDie` requires. */
  addPostStartHook(name: string, run: PostStartHook): void {
    this.#add(this.#postStart, name, run);
  }

  /** Adds a hook run at shutdown, after the ones added before it, before the destroy functions. */
  addPreShutdownHook(name: string, run: ShutdownHook): void {
    this.#add(this.#preShutdown, name, run);
  }

  /** Adds what closes a resource last at shutdown; the ones added later run first. */
  addDestroyFunc(name: string, run: ShutdownHook): void {
    this.#add(this.#destroy, name, run);
  }

  /**
   * Runs the post-start hooks in order; resolves once the last has run, rejects with the
   * first hook's failure. None starts once shutdown has begun; what a hook that was running
   * then started is stopped at once.
   */
  async runPostStartHooks(): Promise<void> {
    for (const hook of this.#postStart) {
      if (this.draining.aborted) return;
      const stop = await hook.run();
      this.#completed.add(hook.name);
      if (!stop) continue;
      if (this.draining.aborted) await stop();
      else this.#stops.push(stop);
    }
  }

  /** Adds readiness checks, as kube's `AddReadyzChecks`; a name is used once. */
  addReadyzChecks(...checks: HealthCheck[]): void {
    for (const check of checks) {
      if (this.#readyzChecks.some(({ name }) => name === check.name))
        throw new Error(`unable to add readyz check "${check.name}" because it was already registered`);
      this.#readyzChecks.push(check);
    }
  }

  /**
   * The readiness checks in kube's order: those added, then one per post-start hook (added
   * so far), then `shutdown`, which makes load balancers stop sending here.
   */
  readyzChecks(): HealthCheck[] {
    return [
      ...this.#readyzChecks,
      ...this.#postStart.map(({ name }) => ({
        name: `poststarthook/${name}`,
        check: () => (this.#completed.has(name) ? undefined : 'not finished'),
      })),
      { name: 'shutdown', check: () => (this.draining.aborted ? 'process is shutting down' : undefined) },
    ];
  }

  /** Graceful shutdown; `delayMs` is how long the server drains before it shuts down (kube's --shutdown-delay-duration). */
  async shutdown(delayMs: number): Promise<void> {
    this.#draining.abort();
    for (const stop of this.#stops.splice(0).reverse()) await stop();
    // Load balancers see readyz fail and stop sending, while watches and requests already here go on;
    // then the watches end, and their clients re-watch on another replica.
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    this.#shutdown.abort();
    for (const hook of this.#preShutdown) await hook.run();
    for (const hook of [...this.#destroy].reverse()) await hook.run();
  }

  #add<T>(hooks: Named<T>[], name: string, run: T): void {
    if (hooks.some((hook) => hook.name === name)) throw new Error(`unable to add hook "${name}" because it was already registered`);
    hooks.push({ name, run });
  }
}
