/**
 * The limits of the GET, create-CPU and watch rows: a bare Koa app on Cairn's own listener
 * (`src/server/serving.ts`: HTTP/2 and HTTP/1.1, client certificates requested) with a
 * PKI generated as Cairn generates its own. A GET answers a small constant JSON. Given a
 * PostgreSQL database, it is also the write path with nothing of Kubernetes in it: a POST
 * to a namespace's Pipelines stamps the object with what a server sets (uid,
 * resourceVersion, creationTimestamp, generation, one managedFields entry listing its
 * fields, so that it is about as long as Cairn's), inserts it as one JSONB row
 * (autocommit, as pgbench's), answers 201 with it, and writes it as an ADDED event to
 * every watch of that namespace (`?watch=true`), each event encoded once for all — what
 * storing a create and delivering it to its watchers costs on this machine at least.
 * Run as a process of its own, like the server it stands beside:
 * `node --import tsx bench/bare-koa-server.ts PKI_DIR [DATABASE_URL]`; it prints
 * `{"port":N}` once listening.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import Koa, { type Context } from 'koa';
import pg from 'pg';
import { ensurePki } from '../src/server/pki.js';
import { listen } from '../src/server/serving.js';
import { loopbackHosts } from './bare-koa.js';

/** What a GET answers: about the size of a small Status. */
const body = JSON.stringify({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 200 });
const namespacePath = /^\/apis\/[^/]+\/[^/]+\/namespaces\/([^/]+)\//;

/** A FieldsV1-like set of the object's fields (maps only: enough to weigh what kube's costs on the wire). */
function fieldSet(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([key, v]) => [`f:${key}`, fieldSet(v)]));
}

/** `text`'s object as a server stores it. */
function stamped(text: string, resourceVersion: number): { name: string; json: string } {
  const object = JSON.parse(text) as { apiVersion?: string; metadata: Record<string, unknown> & { name: string }; spec?: unknown };
  const time = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const { metadata, ...rest } = object;
  const managedFields = [
    { manager: 'bench', operation: 'Update', apiVersion: object.apiVersion, time, fieldsType: 'FieldsV1', fieldsV1: fieldSet({ ...rest, metadata }) },
  ];
  const stored = {
    ...object,
    metadata: { ...metadata, uid: randomUUID(), resourceVersion: String(resourceVersion), generation: 1, creationTimestamp: time, managedFields },
  };
  return { name: metadata.name, json: JSON.stringify(stored) };
}

async function readBody(ctx: Context): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The write path: inserts, then fans each create out to its namespace's watches. */
async function writePath(databaseUrl: string): Promise<Koa.Middleware> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 16 });
  await pool.query(
    'CREATE TABLE IF NOT EXISTS bare_objects (namespace text NOT NULL, name text NOT NULL, object jsonb NOT NULL, PRIMARY KEY (namespace, name))',
  );
  const watches = new Map<string, Set<ServerResponse>>();
  let writes = 0;
  return async (ctx, next) => {
    const namespace = namespacePath.exec(ctx.path)?.[1];
    if (namespace === undefined) {
      await next();
      return;
    }
    if (ctx.method === 'GET' && ctx.query.watch === 'true') {
      const res = ctx.res;
      ctx.respond = false;
      res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
      res.flushHeaders();
      const set = watches.get(namespace) ?? new Set();
      watches.set(namespace, set.add(res));
      res.once('close', () => set.delete(res));
      return;
    }
    if (ctx.method !== 'POST') {
      await next();
      return;
    }
    const { name, json } = stamped(await readBody(ctx), ++writes);
    await pool.query('INSERT INTO bare_objects (namespace, name, object) VALUES ($1, $2, $3)', [namespace, name, json]);
    const event = Buffer.from(`{"type":"ADDED","object":${json}}\n`);
    for (const res of watches.get(namespace) ?? []) res.write(event);
    ctx.status = 201;
    ctx.type = 'application/json';
    ctx.body = json;
  };
}

async function main(): Promise<void> {
  const [pkiDir, databaseUrl] = process.argv.slice(2);
  if (!pkiDir) throw new Error('usage: bare-koa-server.ts PKI_DIR [DATABASE_URL]');
  const pki = await ensurePki(pkiDir, { hosts: loopbackHosts });
  const app = new Koa();
  if (databaseUrl) app.use(await writePath(databaseUrl));
  app.use((ctx) => {
    ctx.type = 'application/json';
    ctx.body = body;
  });
  const listener = await listen(app.callback(), { certPem: pki.servingCertPem, keyPem: pki.servingKeyPem, clientCaPems: [pki.clientCaPem] }, '127.0.0.1', 0);
  process.stdout.write(`${JSON.stringify({ port: listener.port })}\n`);
  const stop = (): void => void listener.close(1000).then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
