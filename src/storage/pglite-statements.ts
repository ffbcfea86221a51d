/**
 * Named prepared statements on PGlite, whose query() parses, describes and plans its
 * statement at every call: in WASM that costs more than running a short statement (a
 * log append's, 1.8 ms of CPU through query(), 0.5 ms prepared). The first call of a
 * name parses its text once, learning its parameters' types; every call then binds and
 * executes it, in one message. PostgreSQL keeps the statement and re-plans it when the
 * tables under it change, as it does for node-postgres' named queries.
 */
import { parse, protocol, type PGlite } from '@electric-sql/pglite';
import type { Row } from './database.js';

/** The statements prepared on one PGlite instance, by name. */
export class PGliteStatements {
  readonly #pglite: PGlite;
  /** Each prepared name's parameter types (OIDs), which pick each value's serializer, as query() picks them. */
  readonly #parameterTypes = new Map<string, readonly number[]>();

  constructor(pglite: PGlite) {
    this.#pglite = pglite;
  }

  /** Runs the statement `name` (`text`, prepared at its first call) with `values`; its rows parsed as query() parses them. */
  async query(name: string, text: string, values: readonly unknown[]): Promise<readonly Row[]> {
    const types = this.#parameterTypes.get(name) ?? (await this.#prepare(name, text));
    const { serializers, parsers } = this.#pglite;
    // As query() serializes them: by the parameter's type, else as text (the values Cairn binds are strings and numbers).
    const serialized = values.map((value, i) =>
      value === null || value === undefined ? null : (serializers[types[i]]?.(value) ?? String(value as string | number | bigint | boolean)),
    );
    const { serialize } = protocol;
    const { messages } = await this.#pglite.execProtocol(
      concat([serialize.bind({ statement: name, values: serialized }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()]),
    );
    return parse.parseResults(messages, parsers)[0]?.rows ?? [];
  }

  async #prepare(name: string, text: string): Promise<readonly number[]> {
    const { serialize } = protocol;
    const { messages } = await this.#pglite.execProtocol(concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]));
    const types = parse.parseDescribeStatementResults(messages);
    this.#parameterTypes.set(name, types);
    return types;
  }
}

const concat = (parts: readonly Uint8Array[]): Uint8Array => new Uint8Array(Buffer.concat(parts));
