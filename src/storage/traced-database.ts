/**
 * The database's round trips as spans: each statement, script and transaction a traced
 * request or write batch makes is a client span beneath it, with OpenTelemetry's
 * database attributes (`db.system.name` and kube-era `db.system` `postgresql`, the
 * operation, a parameterized statement's text cut to a bound; a script's text, which
 * carries values, is left out). Work outside a traced request (the watch cache's polls,
 * compaction) starts no trace of its own. A decorator, so neither backend knows of
 * tracing, and applied only when a tracer is configured: without one the store talks to
 * the backend itself.
 */
import { ATTR_DB_OPERATION_NAME, ATTR_DB_QUERY_TEXT, ATTR_DB_SYSTEM_NAME } from '@opentelemetry/semantic-conventions';
import { inSpan, SpanKind, tracing, type Span } from '../machinery/tracing.js';
import type { ConnectionCounts, Database, DatabaseWork, Row, TransactionWork } from './database.js';

/** The most characters of a statement a span carries: enough to tell statements apart, never a whole batch. */
const maxStatementText = 256;

/** `database`, its round trips traced when a tracer is configured; `database` itself otherwise. */
export function tracedDatabase(database: Database): Database {
  return tracing() ? new TracedDatabase(database) : database;
}

class TracedDatabase implements Database {
  readonly #database: Database;
  readonly backend: Database['backend'];

  constructor(database: Database) {
    this.#database = database;
    this.backend = database.backend;
  }

  #span<T>(name: string, operation: string, text: string | undefined, work: (span: Span | undefined) => Promise<T>): Promise<T> {
    const attributes = {
      [ATTR_DB_SYSTEM_NAME]: 'postgresql',
      'db.system': 'postgresql',
      [ATTR_DB_OPERATION_NAME]: operation,
      'cairn.database.backend': this.backend,
      ...(text !== undefined ? { [ATTR_DB_QUERY_TEXT]: text.length > maxStatementText ? `${text.slice(0, maxStatementText)}…` : text } : {}),
    };
    return inSpan(name, { kind: SpanKind.CLIENT, attributes, onlyWithinSpan: true }, work);
  }

  run<T>(work: DatabaseWork<T>): Promise<T> {
    return this.#span('postgresql queries', 'queries', undefined, () => this.#database.run(work));
  }

  transaction<T>(work: TransactionWork<T>, options?: { snapshot?: boolean }): Promise<T> {
    return this.#span('postgresql transaction', options?.snapshot ? 'snapshot transaction' : 'transaction', undefined, () =>
      this.#database.transaction(work, options),
    );
  }

  query(text: string, values: readonly unknown[], name?: string): Promise<readonly Row[]> {
    const operation = /^\s*(\w+)/.exec(text)?.[1]?.toUpperCase() ?? 'QUERY';
    return this.#span(name ?? `postgresql ${operation}`, operation, text, async (span) => {
      const rows = await this.#database.query(text, values, name);
      span?.setAttribute('db.response.returned_rows', rows.length);
      return rows;
    });
  }

  script(statements: string): Promise<readonly (readonly Row[])[]> {
    return this.#span('postgresql script', 'script', undefined, () => this.#database.script(statements));
  }

  listen(channel: string, onWake: (payload: string) => void): Promise<() => Promise<void>> {
    return this.#database.listen(channel, onWake);
  }

  notify(channel: string, payload?: string): Promise<void> {
    return this.#span('postgresql NOTIFY', 'NOTIFY', undefined, () => this.#database.notify(channel, payload));
  }

  ping(): Promise<void> {
    return this.#database.ping();
  }

  connections(): ConnectionCounts {
    return this.#database.connections();
  }

  close(): Promise<void> {
    return this.#database.close();
  }
}
