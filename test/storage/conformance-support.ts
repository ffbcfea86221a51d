/**
 * What the storage conformance suite's tests share: the backend a factory opens,
 * test objects, and helpers to wait on watchers and on code paused mid-write.
 */
import { expect } from 'vitest';
import type { KubeObject } from '../../src/machinery/meta/object.js';
import type { ObjectStore, StorageKey, StorageObjectEvent, StorageWatcher } from '../../src/storage/interfaces.js';
import { StorageError } from '../../src/storage/storage-error.js';

/** How to open another store on a backend's database (see `StorageBackend.openReplica`). */
export interface ReplicaOptions {
  /** Events its watch cache keeps; a small cache makes its watchers read history from the database. */
  readonly watchCacheCapacity?: number;
  /** The most connections it may hold at once. */
  readonly maxConnections?: number;
}

/**
 * A fresh, empty storage backend, as a conformance factory opens it. The suite uses
 * `store` only through the storage interfaces; what only some backends can do is an
 * optional capability, and the tests that need it run where it exists.
 */
export interface StorageBackend {
  /** The store under test. */
  readonly store: ObjectStore;
  /**
   * Opens another store on the same database, as a second replica or a restarted
   * process would. Absent where one process owns the database (PGlite).
   */
  readonly openReplica?: (options?: ReplicaOptions) => Promise<ObjectStore>;
  /**
   * Counts the sessions on the backend's database that sit idle inside an open
   * transaction. Absent where the database has no sessions to inspect (PGlite).
   */
  readonly idleInTransaction?: () => Promise<number>;
  /** Closes every store and database the backend opened. */
  close(): Promise<void>;
}

/** Opens a fresh, empty storage backend; called once per suite, in `beforeAll`. */
export type MakeStorage = () => Promise<StorageBackend>;

/** Selectable fields the suite's test resources declare. */
export const fieldsOf = (o: KubeObject) => ({ 'metadata.name': String(o.metadata?.name ?? '') });

/** A test object named `name` in namespace `ns`. */
export function object(name: string, extra: Record<string, unknown> = {}, labels?: Record<string, string>): KubeObject {
  return { apiVersion: 'test/v1', kind: 'Thing', metadata: { name, namespace: 'ns', uid: `uid-${name}`, ...(labels ? { labels } : {}) }, ...extra };
}

/** The key of `name` in namespace `ns`. */
export const key = (name: string): StorageKey => ({ namespace: 'ns', name });

/** Expects `promise` to reject with a StorageError of `code`. */
export async function expectStorageError(promise: Promise<unknown>, code: StorageError['code']): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StorageError);
  expect((error as StorageError).code).toBe(code);
}

/** Collects object events from a watcher until `count` arrived (or fails after `ms`). */
export async function collect(watcher: StorageWatcher, count: number, ms = 20_000): Promise<StorageObjectEvent[]> {
  const events: StorageObjectEvent[] = [];
  if (count === 0) return events;
  const timer = setTimeout(() => watcher.stop(), ms);
  for await (const event of watcher) {
    if (event.type === 'BOOKMARK') continue;
    events.push(event);
    if (events.length >= count) break;
  }
  clearTimeout(timer);
  watcher.stop();
  return events;
}

/**
 * Fails when `promise` has not settled within `ms`: a test whose write waits behind
 * a held lock then fails saying what waited, rather than at the test timeout.
 */
export async function within<T>(what: string, promise: Promise<T>, ms = 5000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not complete within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A point where code under test waits until the test lets it go: what a slow
 * admission webhook inside an update function looks like to storage.
 *
 * @example
 * const webhook = new Gate();
 * const updating = storage.guaranteedUpdate(k, async (c) => { await webhook.pass(); return { ...c, spec } });
 * await webhook.reached;
 * // … what must not wait for the update …
 * webhook.release();
 * await updating;
 */
export class Gate {
  readonly #reached = Promise.withResolvers<void>();
  readonly #released = Promise.withResolvers<void>();

  /** Resolves once the code under test waits at the gate. */
  get reached(): Promise<void> {
    return this.#reached.promise;
  }

  /** Called by the code under test: resolves once the test releases the gate. */
  pass(): Promise<void> {
    this.#reached.resolve();
    return this.#released.promise;
  }

  /** Lets every waiter through, now and later. */
  release(): void {
    this.#released.resolve();
  }
}
