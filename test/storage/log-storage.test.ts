/**
 * Log storage on every backend: appends under the object's lock, lines stored as
 * written (PostgreSQL's append travels as literals), reads by uid, tails,
 * lines deleted with their object, followers woken in-process and across stores, and
 * no line skipped by a follower while appends commit concurrently, and an append whose
 * object changes between its read and its statement.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, StoredObject } from '../../src/machinery/meta/object.js';
import type { Database, Row } from '../../src/storage/database.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import type { LogLine, ResourceStorage } from '../../src/storage/interfaces.js';
import { PGliteDatabase } from '../../src/storage/pglite-database.js';
import { PostgresDatabase } from '../../src/storage/postgres-database.js';
import { SqlObjectStore } from '../../src/storage/sql-object-store.js';
import { StorageError } from '../../src/storage/storage-error.js';
import { testDatabaseUrl } from '../support/test-database.js';
import { CountingDatabase } from './counting-database.js';

type Backend = 'pglite' | 'postgres';

const fieldsOf = (o: KubeObject) => ({ 'metadata.name': String(o.metadata?.name ?? '') });
const thing = (name: string, uid: string): KubeObject => ({ apiVersion: 'test/v1', kind: 'Thing', metadata: { name, namespace: 'ns', uid } });
const key = (name: string) => ({ namespace: 'ns', name });
const inStream = (stream: string) => () => stream;
const texts = (lines: readonly LogLine[]) => lines.map((l) => l.text);

describe.each<Backend>(['pglite', 'postgres'])('log storage on %s', (backend) => {
  let url: string | undefined;
  const opened: { database: Database; store: SqlObjectStore }[] = [];
  let things: ResourceStorage;

  async function open(): Promise<ResourceStorage> {
    const database: Database = backend === 'pglite' ? await PGliteDatabase.open() : new PostgresDatabase({ connectionString: url! });
    await migrateToLatest(database);
    const store = await SqlObjectStore.open(database);
    opened.push({ database, store });
    return store.forResource('things.test', fieldsOf);
  }

  beforeAll(async () => {
    if (backend === 'postgres') url = await testDatabaseUrl();
    things = await open();
  });
  afterAll(async () => {
    for (const { database, store } of opened.reverse()) {
      await store.close();
      await database.close();
    }
  });

  it('appends in order, reads by stream, time and page, and finds the start of a tail', async () => {
    await things.create(key('a'), thing('a', 'uid-a'));
    await things.logs.append(key('a'), ['a1', 'a2'], inStream('one'));
    await things.logs.append(key('a'), ['b1'], inStream('two'));
    await things.logs.append(key('a'), ['a3'], inStream('one'));
    const all = await things.logs.read('uid-a', { after: 0n, limit: 100 });
    expect(texts(all)).toEqual(['a1', 'a2', 'b1', 'a3']);
    expect(all.map((l) => l.stream)).toEqual(['one', 'one', 'two', 'one']);
    expect([...all].sort((x, y) => (x.seq < y.seq ? -1 : 1))).toEqual(all);
    for (const line of all) expect(Math.abs(Number(line.appendedAt / 1000n) - Date.now())).toBeLessThan(60_000);
    expect(texts(await things.logs.read('uid-a', { after: 0n, limit: 100, stream: 'one' }))).toEqual(['a1', 'a2', 'a3']);
    expect(texts(await things.logs.read('uid-a', { after: all[1].seq, limit: 1 }))).toEqual(['b1']);
    expect(await things.logs.read('uid-a', { after: 0n, limit: 100, since: new Date(Date.now() + 60_000) })).toEqual([]);
    expect(await things.logs.tailStart('uid-a', 2, undefined)).toBe(all[1].seq);
    expect(await things.logs.tailStart('uid-a', 1, 'one')).toBe(all[1].seq);
    expect(await things.logs.tailStart('uid-a', 0, undefined)).toBe(all[3].seq);
    expect(await things.logs.tailStart('uid-a', 10, undefined)).toBe(0n);
  });

  it('refuses appends to a missing object, or that the check refuses, without writing', async () => {
    await expect(things.logs.append(key('missing'), ['x'], inStream('one'))).rejects.toSatisfy((e) => e instanceof StorageError && e.code === 'KeyNotFound');
    await things.create(key('refused'), thing('refused', 'uid-refused'));
    await expect(
      things.logs.append(key('refused'), ['x'], () => {
        throw new Error('no such stream');
      }),
    ).rejects.toThrow('no such stream');
    expect(await things.logs.read('uid-refused', { after: 0n, limit: 10 })).toEqual([]);
  });

  it('stores lines and a stream as written, whatever quotes, dollars and escapes they hold', async () => {
    await things.create(key('quoted'), thing('quoted', 'uid-quoted'));
    const lines = [`it's`, '$w$ $w0$ $$', '$1 $9 $10', '\\u0000 \u0000 \u0001', '{"a": "b"}', ''];
    await things.logs.append(key('quoted'), lines, inStream('$w$ step'));
    const stored = await things.logs.read('uid-quoted', { after: 0n, limit: 10 });
    expect(texts(stored)).toEqual(lines);
    expect(stored.map((l) => l.stream)).toEqual(lines.map(() => '$w$ step'));
  });

  it('deletes the lines with their object', async () => {
    await things.create(key('d'), thing('d', 'uid-d1'));
    await things.logs.append(key('d'), ['gone'], inStream('one'));
    await things.delete(key('d'));
    expect(await things.logs.read('uid-d1', { after: 0n, limit: 10 })).toEqual([]);
    await things.create(key('d'), thing('d', 'uid-d2'));
    await things.logs.append(key('d'), ['fresh'], inStream('one'));
    expect(texts(await things.logs.read('uid-d2', { after: 0n, limit: 10 }))).toEqual(['fresh']);
  });

  it('wakes a follower at an append, from this store and from another', async () => {
    await things.create(key('f'), thing('f', 'uid-f'));
    const others = backend === 'postgres' ? [things, await open()] : [things];
    for (const writer of others) {
      const follower = things.logs.follow('uid-f');
      const woken = follower.wait(AbortSignal.timeout(2000)).then(() => performance.now());
      await writer.logs.append(key('f'), ['x'], inStream('one'));
      const appended = performance.now();
      expect((await woken) - appended).toBeLessThan(100);
      follower.stop();
    }
    // A wake that came while the follower was not waiting is kept for its next wait.
    const follower = things.logs.follow('uid-f');
    await things.logs.append(key('f'), ['y'], inStream('one'));
    const started = performance.now();
    await follower.wait(AbortSignal.timeout(2000));
    expect(performance.now() - started).toBeLessThan(50);
    follower.stop();
  });

  it('lets a follower reading after its last seq miss no line while appends commit concurrently', async () => {
    await things.create(key('busy'), thing('busy', 'uid-busy'));
    const writers = backend === 'postgres' ? [things, await open()] : [things];
    const appends = Array.from({ length: 60 }, (_, i) => Array.from({ length: 5 }, (_, j) => `${i}.${j}`));
    const seen: LogLine[] = [];
    let done = false;
    const reader = (async () => {
      let cursor = 0n;
      for (;;) {
        const finished = done;
        const page = await things.logs.read('uid-busy', { after: cursor, limit: 7 });
        seen.push(...page);
        if (page.length > 0) cursor = page.at(-1)!.seq;
        else if (finished) return;
      }
    })();
    await Promise.all(appends.map((lines, i) => writers[i % writers.length].logs.append(key('busy'), lines, inStream('one'))));
    done = true;
    await reader;
    const stored = await things.logs.read('uid-busy', { after: 0n, limit: 1000 });
    expect(stored).toHaveLength(300);
    expect(texts(seen)).toEqual(texts(stored));
    // Each append's lines are contiguous and in order.
    for (let i = 0; i < stored.length; i += 5) {
      const batch = texts(stored.slice(i, i + 5));
      const append = batch[0].split('.')[0];
      expect(batch).toEqual([0, 1, 2, 3, 4].map((j) => `${append}.${j}`));
    }
  });
});

/** A database with a write slipped in before the next append's statement (PGlite's prepared one, PostgreSQL's script): between its read of the object and its lock. */
class InterleavedDatabase extends CountingDatabase {
  beforeAppend: (() => Promise<void>) | undefined;

  async #write(): Promise<void> {
    const write = this.beforeAppend;
    this.beforeAppend = undefined;
    await write?.();
  }

  override async query(text: string, values: readonly unknown[], name?: string): Promise<readonly Row[]> {
    if (name === 'cairn-append-log') await this.#write();
    return super.query(text, values, name);
  }

  override async script(statements: string): Promise<readonly (readonly Row[])[]> {
    if (statements.includes('INSERT INTO cairn_log_lines')) await this.#write();
    return super.script(statements);
  }
}

describe.each<Backend>(['pglite', 'postgres'])('a log append on %s whose object changes after it was read', (backend) => {
  let database: InterleavedDatabase;
  let store: SqlObjectStore;
  let things: ResourceStorage;
  /** The stream `one` while the object is labelled open; refused otherwise. */
  const whileOpen = (current: StoredObject) => {
    if (current.metadata.labels?.open !== 'true') throw new Error(`closed at ${String(current.metadata.resourceVersion)}`);
    return 'one';
  };
  const labelled = (open: string) => (current: StoredObject | undefined) => ({ ...current!, metadata: { ...current!.metadata, labels: { open } } });

  beforeAll(async () => {
    database = new InterleavedDatabase(
      backend === 'pglite' ? await PGliteDatabase.open() : new PostgresDatabase({ connectionString: await testDatabaseUrl() }),
    );
    await migrateToLatest(database);
    store = await SqlObjectStore.open(database);
    things = store.forResource('things.test', fieldsOf);
  });
  afterAll(async () => {
    await store?.close();
    await database?.close();
  });

  it('reads it again and checks the stream against what it became, writing nothing before', async () => {
    await things.create(key('closing'), {
      ...thing('closing', 'uid-closing'),
      metadata: { name: 'closing', namespace: 'ns', uid: 'uid-closing', labels: { open: 'true' } },
    });
    database.beforeAppend = async () => void (await things.guaranteedUpdate(key('closing'), labelled('false')));
    await expect(things.logs.append(key('closing'), ['x'], whileOpen)).rejects.toThrow(/^closed at /);
    expect(await things.logs.read('uid-closing', { after: 0n, limit: 10 })).toEqual([]);
    // Changed the other way, the append goes through once it read the object again.
    database.beforeAppend = async () => void (await things.guaranteedUpdate(key('closing'), labelled('true')));
    await expect(
      things.logs.append(key('closing'), ['y'], (current) => (current.metadata.labels?.open === 'false' ? 'one' : whileOpen(current))),
    ).resolves.toBeUndefined();
    expect(texts(await things.logs.read('uid-closing', { after: 0n, limit: 10 }))).toEqual(['y']);
  });

  it('checks the next append to a log against the object it changed into since the last', async () => {
    await things.create(key('next'), { ...thing('next', 'uid-next'), metadata: { name: 'next', namespace: 'ns', uid: 'uid-next', labels: { open: 'true' } } });
    await things.logs.append(key('next'), ['1'], whileOpen);
    await things.guaranteedUpdate(key('next'), labelled('false'));
    await expect(things.logs.append(key('next'), ['2'], whileOpen)).rejects.toThrow(/^closed at /);
    // Refused by the object the last append wrote under, allowed by the current one.
    const whileClosed = (current: StoredObject) => {
      if (current.metadata.labels?.open !== 'false') throw new Error('open');
      return 'one';
    };
    await things.logs.append(key('next'), ['3'], whileClosed);
    await things.guaranteedUpdate(key('next'), labelled('true'));
    await things.logs.append(key('next'), ['4'], whileOpen);
    const stored = await things.logs.read('uid-next', { after: 0n, limit: 10 });
    expect(stored.map((l) => [l.text, l.stream])).toEqual([
      ['1', 'one'],
      ['3', 'one'],
      ['4', 'one'],
    ]);
  });

  it('writes nothing to an object deleted in between, nor to the one created again under its name', async () => {
    await things.create(key('gone'), {
      ...thing('gone', 'uid-gone1'),
      metadata: { name: 'gone', namespace: 'ns', uid: 'uid-gone1', labels: { open: 'true' } },
    });
    database.beforeAppend = async () => void (await things.delete(key('gone')));
    await expect(things.logs.append(key('gone'), ['x'], whileOpen)).rejects.toSatisfy((e) => e instanceof StorageError && e.code === 'KeyNotFound');
    expect(await things.logs.read('uid-gone1', { after: 0n, limit: 10 })).toEqual([]);
    await things.create(key('gone'), {
      ...thing('gone', 'uid-gone2'),
      metadata: { name: 'gone', namespace: 'ns', uid: 'uid-gone2', labels: { open: 'true' } },
    });
    database.beforeAppend = async () => {
      await things.delete(key('gone'));
      await things.create(key('gone'), {
        ...thing('gone', 'uid-gone3'),
        metadata: { name: 'gone', namespace: 'ns', uid: 'uid-gone3', labels: { open: 'true' } },
      });
    };
    await things.logs.append(key('gone'), ['z'], whileOpen);
    expect(await things.logs.read('uid-gone2', { after: 0n, limit: 10 })).toEqual([]);
    expect(texts(await things.logs.read('uid-gone3', { after: 0n, limit: 10 }))).toEqual(['z']);
  });
});
