/**
 * The garbage collector at scale: one owner with N dependents, deleted in background
 * and then (with N new dependents) in foreground, each timed from the DELETE until
 * the owner and every dependent are gone, with the server's resident memory sampled
 * all along. The first dependent is created through the API; the others are its
 * copies written in SQL as another replica writes them (bench/seed.ts, `seedCopies`)
 * when the server's PostgreSQL is known, else created through the API too, many at
 * once over keep-alive connections. Before the owner's DELETE the collector is let
 * settle (its queues empty, no catch-up pass under way), so that the cascade is timed
 * alone and not the checks of the dependents just created. The server must run its
 * garbage collector.
 *
 * `npx tsx bench/gc-cascade.ts [--dependents 100000] [--database-url URL]`: starts a
 * throwaway PostgreSQL cluster unless given a database, starts Cairn on it, and prints
 * the figures as JSON.
 */
import { decodeJsonb } from '../src/storage/stored-text.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { pipelines as pipelinesResource } from '../src/apis/cairn/pipelines.js';
import type { KubeObject } from '../src/machinery/meta/object.js';
import { storageName } from '../src/registry/resource-storage.js';
import { PostgresDatabase } from '../src/storage/postgres-database.js';
import { startPostgresCluster } from './postgres-cluster.js';
import { CairnProcess } from './cairn-process.js';
import { mib, residentBytes } from './process-memory.js';
import { seedCopies } from './seed.js';
import { expectStatus, keepAliveAgent, request, type ServerAccess } from './server-access.js';

/** A server the cascade runs against: how to reach it, and its process to sample. */
export interface CascadeServer {
  readonly access: ServerAccess;
  readonly pid: number;
  /** The server's PostgreSQL: when given, the dependents are written in SQL, as another replica writes them. */
  readonly databaseUrl?: string;
}

/** One cascade's figures. */
export interface CascadeFigures {
  readonly propagationPolicy: 'Background' | 'Foreground';
  readonly dependents: number;
  /** Creating the dependents: through the API, or in SQL (`seeded`). */
  readonly createSeconds: number;
  readonly seeded: boolean;
  /** From the dependents' creation until the collector had checked them all (its queues empty, no catch-up pass under way). */
  readonly settleSeconds: number;
  /** From the owner's DELETE until it and every dependent are gone. */
  readonly cascadeSeconds: number;
  readonly dependentsPerSecond: number;
  /** The server's resident memory before the cascade and at its peak during it. */
  readonly rssBeforeMiB: number;
  readonly rssPeakMiB: number;
}

const classes = '/apis/cairn.dev/v1/runnerclasses';
const namespace = 'gc-cascade';
const pipelines = `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;
/** Creates in flight at once. */
const concurrency = 32;

/** One sample of the collector's work in progress from the server's /metrics: queued keys plus a catch-up pass under way. */
async function collectorBusy(access: ServerAccess): Promise<number> {
  const text = await expectStatus(access, 'GET', '/metrics');
  let busy = 0;
  for (const match of text.matchAll(/^(?:workqueue_depth\{name="garbage_collector_[a-z_]+"\}|cairn_garbage_collector_catching_up) (\S+)$/gm))
    busy += Number(match[1]);
  return busy;
}

/** Waits until the collector has been idle for three samples in a row, 500 ms apart. */
async function settled(access: ServerAccess): Promise<void> {
  for (let idle = 0; idle < 3;) {
    idle = (await collectorBusy(access)) === 0 ? idle + 1 : 0;
    await sleep(500);
  }
}

/** Runs `each` for 0 … count-1, `concurrency` at a time. */
async function times(count: number, each: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await each(next++);
    }),
  );
}

/**
 * Creates an owner and `dependents` Pipelines owned by it, deletes the owner with
 * `propagationPolicy`, and times the cascade, sampling the server's RSS every 200 ms.
 */
export async function measureCascade(
  server: CascadeServer,
  dependents: number,
  propagationPolicy: 'Background' | 'Foreground',
  log: (line: string) => void = () => undefined,
): Promise<CascadeFigures> {
  const agent = keepAliveAgent(concurrency);
  const { access } = server;
  const ownerName = `gc-owner-${propagationPolicy.toLowerCase()}`;
  const owner = JSON.parse(
    await expectStatus(access, 'POST', classes, {
      agent,
      body: JSON.stringify({ apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: ownerName }, spec: {} }),
    }),
  ) as { metadata: { uid: string } };
  const reference = { apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', name: ownerName, uid: owner.metadata.uid, blockOwnerDeletion: true };
  const name = (i: number): string => `${propagationPolicy.toLowerCase()}-${String(i).padStart(7, '0')}`;
  const create = (i: number): Promise<string> => {
    const body = {
      apiVersion: 'cairn.dev/v1',
      kind: 'Pipeline',
      metadata: { name: name(i), labels: { cascade: propagationPolicy.toLowerCase() }, ownerReferences: [reference] },
      spec: { runnerClassName: 'standard', steps: [{ name: 'run', image: 'alpine:3.20', command: ['sh', '-c', 'echo hi'] }] },
    };
    if (i > 0 && i % 10_000 === 0) log(`  created ${i} dependents`);
    return expectStatus(access, 'POST', pipelines, { agent, body: JSON.stringify(body) });
  };
  const createStart = performance.now();
  const seeded = server.databaseUrl !== undefined && dependents > 1;
  if (seeded) {
    // The first through the API; the others its copies, row for row.
    await create(0);
    const database = new PostgresDatabase({ connectionString: server.databaseUrl });
    try {
      const [row] = await database.query('SELECT object FROM cairn_objects WHERE resource = $1 AND namespace = $2 AND name = $3', [
        storageName(pipelinesResource),
        namespace,
        name(0),
      ]);
      const template = row === undefined ? undefined : (decodeJsonb(row.object as string) as KubeObject);
      if (!template) throw new Error(`${name(0)}: no row`);
      await seedCopies(database, {
        template,
        count: dependents - 1,
        name: (i) => name(i + 1),
        onProgress: (written) => written % 10_000 === 0 && log(`  seeded ${written + 1} dependents`),
      });
    } finally {
      await database.close();
    }
  } else {
    await times(dependents, create);
  }
  const createSeconds = (performance.now() - createStart) / 1000;
  log(`${propagationPolicy}: ${dependents} dependents ${seeded ? 'seeded' : 'created'} in ${createSeconds.toFixed(1)} s`);
  await settled(access);
  const settleSeconds = (performance.now() - createStart) / 1000 - createSeconds;
  log(`${propagationPolicy}: the garbage collector settled ${settleSeconds.toFixed(1)} s later`);

  const rssBefore = residentBytes(server.pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, residentBytes(server.pid))), 200);
  const start = performance.now();
  try {
    // 200 with the object marked for deletion (foreground) or as it was (background).
    const deleted = await request(access, 'DELETE', `${classes}/${ownerName}?propagationPolicy=${propagationPolicy}`, { agent });
    if (deleted.status >= 300) throw new Error(`DELETE ${ownerName}: HTTP ${deleted.status}: ${deleted.text.slice(0, 300)}`);
    const left = `${pipelines}?limit=1&fieldSelector=${encodeURIComponent(`metadata.ownerReferences.uid=${owner.metadata.uid}`)}`;
    for (let polls = 0; ; polls++) {
      const remaining = JSON.parse(await expectStatus(access, 'GET', left, { agent })) as { items: unknown[]; metadata: { remainingItemCount?: number } };
      const ownerGone = (await request(access, 'GET', `${classes}/${ownerName}`, { agent })).status === 404;
      if (remaining.items.length === 0 && ownerGone) break;
      if (polls % 20 === 0)
        log(`  ${((performance.now() - start) / 1000).toFixed(0)} s: dependents left, RSS ${mib(residentBytes(server.pid)).toFixed(0)} MiB`);
      await sleep(500);
    }
  } finally {
    clearInterval(sampler);
    agent.destroy();
  }
  const cascadeSeconds = (performance.now() - start) / 1000;
  log(
    `${propagationPolicy}: cascade over ${dependents} dependents in ${cascadeSeconds.toFixed(1)} s, RSS ${mib(rssBefore).toFixed(0)} → peak ${mib(rssPeak).toFixed(0)} MiB`,
  );
  return {
    propagationPolicy,
    dependents,
    createSeconds,
    seeded,
    settleSeconds,
    cascadeSeconds,
    dependentsPerSecond: dependents / cascadeSeconds,
    rssBeforeMiB: mib(rssBefore),
    rssPeakMiB: mib(rssPeak),
  };
}

/** Creates the RunnerClass the dependents name (it may exist already). */
export async function prepareCascades(server: CascadeServer): Promise<void> {
  await request(server.access, 'POST', classes, {
    body: JSON.stringify({ apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'standard' }, spec: {} }),
  });
}

/** Both cascades, background then foreground, on a server with its garbage collector on. */
export async function measureGcCascades(server: CascadeServer, dependents: number, log?: (line: string) => void): Promise<CascadeFigures[]> {
  await prepareCascades(server);
  return [await measureCascade(server, dependents, 'Background', log), await measureCascade(server, dependents, 'Foreground', log)];
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { dependents: { type: 'string', default: '100000' }, 'database-url': { type: 'string' } } });
  const dependents = Number(values.dependents);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const cluster = values['database-url'] === undefined ? await startPostgresCluster() : undefined;
  const dataDir = await mkdtemp(join(tmpdir(), 'cairn-gc-cascade-'));
  try {
    const databaseUrl = values['database-url'] ?? (await cluster!.createDatabase());
    const server = await CairnProcess.start({ dataDir, databaseUrl, logFile: join(dataDir, 'server.log'), extraArgs: ['--log-level', 'warn'] });
    try {
      console.log(JSON.stringify(await measureGcCascades({ access: server.access, pid: server.pid, databaseUrl }, dependents, log), null, 2));
    } finally {
      await server.stop();
    }
  } finally {
    await cluster?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
