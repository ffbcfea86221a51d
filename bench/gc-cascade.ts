/**
 * The garbage collector at scale: one owner with N dependents, deleted in background
 * and then (with N new dependents) in foreground, each timed from the DELETE until
 * the owner and every dependent are gone, with the server's resident memory sampled
 * all along. The dependents are created through the API (so they are exactly what the
 * API writes), many at once over keep-alive connections; the server must run its
 * garbage collector.
 *
 * `npx tsx bench/gc-cascade.ts [--dependents 100000] [--database-url URL]`: starts a
 * throwaway PostgreSQL cluster unless given a database, starts Cairn on it, and prints
 * the figures as JSON.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPostgresCluster } from '../test/support/postgres-cluster.js';
import { CairnProcess } from './cairn-process.js';
import { mib, residentBytes } from './process-memory.js';
import { expectStatus, keepAliveAgent, request, type ServerAccess } from './server-access.js';

/** A server the cascade runs against: how to reach it, and its process to sample. */
export interface CascadeServer {
  readonly access: ServerAccess;
  readonly pid: number;
}

/** One cascade's figures. */
export interface CascadeFigures {
  readonly propagationPolicy: 'Background' | 'Foreground';
  readonly dependents: number;
  /** Creating the dependents through the API. */
  readonly createSeconds: number;
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
  const createStart = performance.now();
  await times(dependents, (i) => {
    const body = {
      apiVersion: 'cairn.dev/v1',
      kind: 'Pipeline',
      metadata: { name: `${propagationPolicy.toLowerCase()}-${String(i).padStart(7, '0')}`, ownerReferences: [reference] },
      spec: { runnerClassName: 'standard', steps: [{ name: 'run', image: 'alpine:3.20', command: ['sh', '-c', 'echo hi'] }] },
    };
    if (i > 0 && i % 10_000 === 0) log(`  created ${i} dependents`);
    return expectStatus(access, 'POST', pipelines, { agent, body: JSON.stringify(body) });
  });
  const createSeconds = (performance.now() - createStart) / 1000;
  log(`${propagationPolicy}: ${dependents} dependents created in ${createSeconds.toFixed(1)} s`);

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
    cascadeSeconds,
    dependentsPerSecond: dependents / cascadeSeconds,
    rssBeforeMiB: mib(rssBefore),
    rssPeakMiB: mib(rssPeak),
  };
}

/** Both cascades, background then foreground, on a server with its garbage collector on. */
export async function measureGcCascades(server: CascadeServer, dependents: number, log?: (line: string) => void): Promise<CascadeFigures[]> {
  // The dependents' class; it may exist already.
  await request(server.access, 'POST', classes, {
    body: JSON.stringify({ apiVersion: 'cairn.dev/v1', kind: 'RunnerClass', metadata: { name: 'standard' }, spec: {} }),
  });
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
      console.log(JSON.stringify(await measureGcCascades(server, dependents, log), null, 2));
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
