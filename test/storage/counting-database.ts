/**
 * A Database that counts what reads the object table (Kysely queries, and statements
 * naming `cairn_objects`) and the round trips that write it, and can hold a snapshot read (what an object cache's load
 * is) before its snapshot is taken and after: the points where concurrent writes
 * must be stitched in.
 */
import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import type { Database, DatabaseWork, Row, TransactionWork } from '../../src/storage/database.js';

/** Where a snapshot read waits, when told to. */
export interface SnapshotHolds {
  /** Before the transaction begins (nothing is held: other work goes on). */
  readonly beforeSnapshot?: () => Promise<void>;
  /** After its first query, which took the snapshot (PostgreSQL only: PGlite's one connection is held meanwhile). */
  readonly afterFirstQuery?: () => Promise<void>;
}

/** Counts executed queries; in a held snapshot read, waits after the first one. */
class Counter implements KyselyPlugin {
  readonly #owner: CountingDatabase;
  #afterFirst: (() => Promise<void>) | undefined;

  constructor(owner: CountingDatabase, afterFirst?: () => Promise<void>) {
    this.#owner = owner;
    this.#afterFirst = afterFirst;
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    this.#owner.objectStatements++;
    const hold = this.#afterFirst;
    this.#afterFirst = undefined;
    await hold?.();
    return args.result;
  }
}

/** A Database wrapper counting statements on objects; `holds` applies to the next snapshot read only. */
export class CountingDatabase implements Database {
  readonly backend: Database['backend'];
  /** Queries through Kysely (lists, loads, watch bounds) and statements naming the object table. */
  objectStatements = 0;
  /** Reads of the event log's tail (what a consistent read from the cache waits for). */
  logTailReads = 0;
  /** Round trips that write objects: write batches, and anything else that would. */
  writeRoundTrips = 0;
  /** NOTIFYs sent on their own (a write batch wakes the other replicas in its own statement). */
  notifies = 0;
  /** Holds for the next snapshot transaction. */
  holds: SnapshotHolds | undefined;
  readonly #inner: Database;

  constructor(inner: Database) {
    this.#inner = inner;
    this.backend = inner.backend;
  }

  run<T>(work: DatabaseWork<T>): Promise<T> {
    return this.#inner.run((db) => work(db.withPlugin(new Counter(this))));
  }

  async transaction<T>(work: TransactionWork<T>, options?: { snapshot?: boolean }): Promise<T> {
    const holds = options?.snapshot ? this.holds : undefined;
    if (holds) this.holds = undefined;
    await holds?.beforeSnapshot?.();
    return this.#inner.transaction((trx) => work(trx.withPlugin(new Counter(this, holds?.afterFirstQuery))), options);
  }

  query(text: string, values: readonly unknown[], name?: string): Promise<readonly Row[]> {
    if (/cairn_objects/.test(text)) this.objectStatements++;
    if (/INSERT INTO cairn_objects/.test(text)) this.writeRoundTrips++;
    if (name === 'cairn-log-tail') this.logTailReads++;
    return this.#inner.query(text, values, name);
  }

  script(statements: string): Promise<readonly (readonly Row[])[]> {
    if (/cairn_objects/.test(statements)) this.objectStatements++;
    if (/INSERT INTO cairn_objects/.test(statements)) this.writeRoundTrips++;
    return this.#inner.script(statements);
  }

  listen: Database['listen'] = (channel, onWake) => this.#inner.listen(channel, onWake);
  notify: Database['notify'] = (channel, payload) => {
    this.notifies++;
    return this.#inner.notify(channel, payload);
  };
  ping = () => this.#inner.ping();
  connections = () => this.#inner.connections();
  close = () => this.#inner.close();
}
