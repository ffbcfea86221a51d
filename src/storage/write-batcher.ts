/**
 * Group commit in the application: one writer loop per store takes every write
 * waiting (creates, updates, deletes, of any resource) into one batch, one round trip
 * and one transaction ({@link runWriteBatch}), and starts the next batch with what
 * queued meanwhile. One write or a thousand pay one counter lock and one commit flush.
 * Traced, a batch is a span beneath the first request it carries, linked to every
 * request's span, with its size (`db.operation.batch.size`).
 */
import type { Database, Row } from './database.js';
import type { EventLogEntry } from './event-log-entry.js';
import { classifyDatabaseError, isConnectionError, isReadOnlyError, StorageError } from './storage-error.js';
import { readBatchOutcome, runWriteBatch, type BatchedWrite, type BatchNotify } from './write-batch-statement.js';
import { noStorageMetrics, type StorageRecorder } from './metrics.js';
import { activeSpanContext, contextOf, inSpan, SpanKind, type SpanContext } from '../machinery/tracing.js';

/** A write handed to the batcher. */
export interface SubmittedWrite extends BatchedWrite {
  /** The event this write is once committed at `rv`, for this process's watch cache. */
  readonly event: (rv: bigint) => EventLogEntry;
}

/** What a committed batch hands the watch machinery, before any of its writers hears back. */
export interface CommittedBatch {
  /** Every resourceVersion up to `after` had committed before the batch; it took `after + 1` … `through`. */
  readonly after: bigint;
  readonly through: bigint;
  /** The events of the writes that committed, in resourceVersion order. */
  readonly events: readonly EventLogEntry[];
}

/** What a WriteBatcher is made of. */
export interface WriteBatcherOptions {
  readonly database: Database;
  /**
   * Called after each batch that committed writes, and with undefined after a batch
   * whose outcome is unknown (the connection went while it ran): the log will tell.
   */
  readonly onCommit: (batch: CommittedBatch | undefined) => void;
  /** Whom a batch that commits writes wakes, in its own transaction (the other replicas); nobody when undefined. */
  readonly notify?: BatchNotify;
  /** Where each batch's size is recorded; nowhere by default. */
  readonly metrics?: StorageRecorder;
  /** The most writes in one batch; default 256. */
  readonly maxWrites?: number;
  /** The most bytes of objects in one batch (a larger write goes alone); default 8 MiB. */
  readonly maxBytes?: number;
}

interface Pending {
  readonly write: SubmittedWrite;
  readonly key: string;
  readonly bytes: number;
  readonly resolve: (rv: bigint | undefined) => void;
  readonly reject: (error: unknown) => void;
  /** The span of the request that submitted it, when traced. */
  readonly spanContext: SpanContext | undefined;
}

/** SQLSTATEs after which the same transaction may simply run again: deadlock detected, serialization failure. */
const retryable = new Set(['40P01', '40001']);
const attempts = 3;

/** The writer loop of one store. */
export class WriteBatcher {
  readonly #database: Database;
  readonly #onCommit: WriteBatcherOptions['onCommit'];
  readonly #notifies: BatchNotify | undefined;
  readonly #metrics: StorageRecorder;
  readonly #maxWrites: number;
  readonly #maxBytes: number;
  #pending: Pending[] = [];
  /** The loop, while it runs. */
  #running: Promise<void> | undefined;
  #closed = false;

  constructor(options: WriteBatcherOptions) {
    this.#database = options.database;
    this.#onCommit = options.onCommit;
    this.#notifies = options.notify;
    this.#metrics = options.metrics ?? noStorageMetrics;
    this.#maxWrites = options.maxWrites ?? 256;
    this.#maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  }

  /**
   * Queues `write` for the next batch. Resolves with its resourceVersion once committed,
   * or undefined when its condition failed (a create whose key exists, an update or
   * delete whose row changed); rejects when the batch failed (a classified storage error).
   */
  submit(write: SubmittedWrite): Promise<bigint | undefined> {
    if (this.#closed) return Promise.reject(new StorageError('Unavailable', 'the object store is closed'));
    return new Promise((resolve, reject) => {
      const key = `${write.resource}\u0000${write.namespace}\u0000${write.name}`;
      this.#pending.push({ write, key, bytes: write.object.head.length + write.object.tail.length, resolve, reject, spanContext: activeSpanContext() });
      // Started on the next turn of the event loop: every write whose request was read in this turn joins the batch.
      this.#running ??= new Promise<void>((started) => setImmediate(started)).then(() => this.#loop());
    });
  }

  /** Takes no more writes, and resolves once those queued are done. */
  async close(): Promise<void> {
    this.#closed = true;
    while (this.#running) await this.#running;
  }

  async #loop(): Promise<void> {
    try {
      while (this.#pending.length > 0) await this.#traced(this.#take());
    } finally {
      this.#running = undefined;
    }
  }

  /** The next batch: queued writes in order, one per key (a second write of a key waits for the next batch), within the limits. */
  #take(): Pending[] {
    const batch: Pending[] = [];
    const rest: Pending[] = [];
    const keys = new Set<string>();
    let bytes = 0;
    for (const pending of this.#pending) {
      const fits = batch.length === 0 || (batch.length < this.#maxWrites && bytes + pending.bytes <= this.#maxBytes);
      if (fits && !keys.has(pending.key)) {
        batch.push(pending);
        keys.add(pending.key);
        bytes += pending.bytes;
      } else {
        rest.push(pending);
      }
    }
    this.#pending = rest;
    return batch;
  }

  /** Runs one batch in its span, when traced: the child of its first request's span (not of whichever request started the loop), linked to them all. */
  #traced(batch: readonly Pending[]): Promise<void> {
    const first = batch.find((p) => p.spanContext !== undefined)?.spanContext;
    if (first === undefined) return this.#commit(batch);
    const links = batch.flatMap((p) => (p.spanContext ? [{ context: p.spanContext }] : []));
    return inSpan(
      'storage write batch',
      {
        kind: SpanKind.INTERNAL,
        parent: contextOf(first),
        links,
        attributes: { 'db.operation.batch.size': batch.length, 'db.system.name': 'postgresql', 'db.system': 'postgresql' },
      },
      () => this.#commit(batch),
    );
  }

  /** Runs one batch and settles its writes. */
  async #commit(batch: readonly Pending[], attempt = 1): Promise<void> {
    this.#metrics.writeBatch(batch.length);
    let rows: readonly Row[];
    try {
      rows = await runWriteBatch(
        this.#database,
        batch.map((p) => p.write),
        this.#notifies,
      );
    } catch (error) {
      if (isConnectionError(error)) {
        // Maybe committed, maybe not: every write of the batch is, wholly or not at all.
        this.#notify(undefined);
        const failure = classifyDatabaseError(error);
        for (const p of batch) p.reject(failure);
        return;
      }
      if (isReadOnlyError(error)) {
        // Refused before anything was written: every write of the batch fails alike, none needs running alone.
        const failure = classifyDatabaseError(error);
        for (const p of batch) p.reject(failure);
        return;
      }
      const code = (error as { code?: unknown }).code;
      if (typeof code === 'string' && retryable.has(code) && attempt < attempts) return this.#commit(batch, attempt + 1);
      // The transaction rolled back. One write may be what the database refused (a value jsonb
      // cannot hold): run each alone, so it fails only its own request.
      if (batch.length > 1) {
        for (const p of batch) await this.#commit([p]);
        return;
      }
      batch[0].reject(error);
      return;
    }
    // Committed: from here on nothing runs the writes again.
    let resourceVersions: readonly (bigint | undefined)[];
    try {
      const outcome = readBatchOutcome(rows, batch.length);
      resourceVersions = outcome.resourceVersions;
      if (outcome.range) {
        const events: EventLogEntry[] = [];
        batch.forEach((p, i) => {
          const rv = resourceVersions[i];
          if (rv !== undefined) events.push(p.write.event(rv));
        });
        this.#notify({ ...outcome.range, events });
      }
    } catch (error) {
      this.#notify(undefined);
      for (const p of batch) p.reject(error);
      return;
    }
    batch.forEach((p, i) => p.resolve(resourceVersions[i]));
  }

  /** Hands the outcome to the watch machinery; its failure must not fail the writes. */
  #notify(batch: CommittedBatch | undefined): void {
    try {
      this.#onCommit(batch);
    } catch {
      // The watch cache catches up at the next poll.
    }
  }
}
