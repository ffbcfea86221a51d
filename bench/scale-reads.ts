/**
 * The reads of issue 24 on a seeded database (bench/seed.ts), as a client sees them: time
 * to ready, first pages, GETs, selective selectors, paging through everything, one
 * unpaginated (streamed) LIST of everything, and the server's RSS after each.
 */
import https from 'node:https';
import { percentile } from './stats.js';
import type { CairnProcess } from './cairn-process.js';
import { cpuSeconds } from './process-cpu.js';
import { mib } from './process-memory.js';
import { seedName, seedNamespace, seededSelectors, type SeedShape } from './seed.js';
import { keepAliveAgent, request, tlsOptions, type ServerAccess } from './server-access.js';

const clusterPath = '/apis/cairn.dev/v1/pipelines';
const namespacePath = (namespace: string): string => `/apis/cairn.dev/v1/namespaces/${namespace}/pipelines`;

/** Latencies of one kind of request, in ms. */
export interface Latencies {
  readonly first: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly samples: number;
  /** Items the last answer held (a page's, a selector's). */
  readonly items?: number;
}

/** A read of everything, with the server's CPU time per 1,000 objects (ms), a figure the machine's other load changes less than the rate. */
export interface ReadAll {
  readonly objects: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly cpuMsPer1000: number;
}

/** Everything one run measured. */
export interface ScaleReads {
  readonly readyMs: number;
  readonly rssMiB: { afterStart: number; afterPaging?: number; afterStreamed?: number; peakStreamed?: number };
  readonly latencies: Readonly<Record<string, Latencies>>;
  readonly paging?: ReadAll;
  readonly streamed?: ReadAll & { readonly bytes: number };
}

/** What {@link measureScaleReads} measures, and on how much. */
export interface ScaleReadOptions {
  readonly shape: SeedShape;
  /** Everything; only the first pages (a size of the chart); only paging and the streamed LIST. */
  readonly parts: 'all' | 'first-pages' | 'throughput';
  /** Requests per latency figure are divided by this (a quick run's 5); default 1. */
  readonly sampleDivisor?: number;
}

/** Times `count` GETs of `path(i)` on one keep-alive connection; the first is reported apart. */
async function time(access: ServerAccess, agent: https.Agent, count: number, path: (i: number) => string): Promise<Latencies> {
  const samples: number[] = [];
  let items: number | undefined;
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const response = await request(access, 'GET', path(i), { agent, timeoutMs: 300_000 });
    samples.push(performance.now() - start);
    if (response.status !== 200) throw new Error(`GET ${path(i)}: HTTP ${response.status}: ${response.text.slice(0, 300)}`);
    if (i === count - 1) items = (JSON.parse(response.text) as { items?: unknown[] }).items?.length;
  }
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    first: samples[0],
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted.at(-1)!,
    samples: count,
    ...(items !== undefined ? { items } : {}),
  };
}

/** Lists everything in pages of `limit`, following `continue`; checks each object came once, in key order. */
async function pageAll(access: ServerAccess, limit: number): Promise<{ objects: number; seconds: number }> {
  const agent = keepAliveAgent(1);
  const start = performance.now();
  let objects = 0;
  let last = '';
  let token: string | undefined;
  try {
    do {
      const response = await request(access, 'GET', `${clusterPath}?limit=${limit}${token ? `&continue=${encodeURIComponent(token)}` : ''}`, { agent });
      if (response.status !== 200) throw new Error(`a page: HTTP ${response.status}: ${response.text.slice(0, 300)}`);
      const page = JSON.parse(response.text) as { items: { metadata: { namespace: string; name: string } }[]; metadata: { continue?: string } };
      for (const item of page.items) {
        const key = `${item.metadata.namespace}/${item.metadata.name}`;
        if (key <= last) throw new Error(`paging went back from ${last} to ${key}`);
        last = key;
      }
      objects += page.items.length;
      token = page.metadata.continue || undefined;
    } while (token !== undefined);
  } finally {
    agent.destroy();
  }
  return { objects, seconds: (performance.now() - start) / 1000 };
}

/** One unpaginated LIST of everything, counting items as the bytes stream by without keeping them. */
function listAll(access: ServerAccess): Promise<{ objects: number; seconds: number; bytes: number }> {
  // Each item's kind, as JSON.stringify spells it or as PostgreSQL prints jsonb (the template has no other object of that kind).
  const markers = [Buffer.from('"kind":"Pipeline"'), Buffer.from('"kind": "Pipeline"')];
  const longest = Math.max(...markers.map((m) => m.length));
  const start = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${access.url}${clusterPath}`,
      { ...tlsOptions(access), agent: false, headers: { Accept: 'application/json' }, timeout: 600_000 },
      (res) => {
        let bytes = 0;
        let objects = 0;
        let tail = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          // A marker may straddle two chunks: search the previous chunk's tail with this one, counting what ends past the tail.
          const text = Buffer.concat([tail, chunk]);
          for (const marker of markers)
            for (let at = text.indexOf(marker); at >= 0; at = text.indexOf(marker, at + marker.length)) if (at + marker.length > tail.length) objects++;
          tail = text.subarray(Math.max(0, text.length - longest + 1));
        });
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`the unpaginated LIST: HTTP ${String(res.statusCode)}`));
          else resolve({ objects, seconds: (performance.now() - start) / 1000, bytes });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('the unpaginated LIST: no answer in 600 s')));
    req.on('error', reject);
    req.end();
  });
}

const rate = (r: { objects: number; seconds: number }) => Math.round(r.objects / r.seconds);

/** Times first pages, GETs and selectors, each several times on one connection. */
async function measureLatencies(access: ServerAccess, options: ScaleReadOptions, log: (line: string) => void): Promise<Record<string, Latencies>> {
  const { shape } = options;
  const agent = keepAliveAgent(1);
  const latencies: Record<string, Latencies> = {};
  const measure = async (name: string, count: number, path: (i: number) => string) => {
    latencies[name] = await time(access, agent, Math.max(5, Math.round(count / (options.sampleDivisor ?? 1))), path);
    const l = latencies[name];
    log(`${name}: first ${l.first.toFixed(1)} ms, p50 ${l.p50.toFixed(1)}, p99 ${l.p99.toFixed(1)} ms${l.items !== undefined ? ` (${l.items} items)` : ''}`);
  };
  const namespace = seedNamespace(42, shape);
  try {
    await measure('first page, cluster', 100, () => `${clusterPath}?limit=500`);
    await measure('first page, namespace', 100, (i) => `${namespacePath(seedNamespace(i * 7, shape))}?limit=500`);
    if (options.parts === 'first-pages') return latencies;
    await measure('get', 300, (i) => `${namespacePath(seedNamespace(i * 7919, shape))}/${seedName((i * 7919) % shape.count)}`);
    for (const [name, selector] of Object.entries(seededSelectors.label)) {
      await measure(`label ${name}, cluster`, 20, () => `${clusterPath}?limit=500&labelSelector=${encodeURIComponent(selector)}`);
      await measure(`label ${name}, namespace`, 20, () => `${namespacePath(namespace)}?limit=500&labelSelector=${encodeURIComponent(selector)}`);
    }
    for (const [name, selector] of Object.entries(seededSelectors.field)) {
      await measure(`field ${name}, cluster`, 20, () => `${clusterPath}?limit=500&fieldSelector=${encodeURIComponent(selector)}`);
      await measure(`field ${name}, namespace`, 20, () => `${namespacePath(namespace)}?limit=500&fieldSelector=${encodeURIComponent(selector)}`);
    }
    const someName = seedName(Math.floor(shape.count / 3));
    await measure('field metadata.name, cluster', 20, () => `${clusterPath}?limit=500&fieldSelector=${encodeURIComponent(`metadata.name=${someName}`)}`);
    await measure(
      'field metadata.namespace, cluster',
      20,
      () => `${clusterPath}?limit=500&fieldSelector=${encodeURIComponent(`metadata.namespace=${namespace}`)}`,
    );
  } finally {
    agent.destroy();
  }
  return latencies;
}

/**
 * Measures the reads `options.parts` names on `server`, just started on a seeded
 * database: the first request is a first page. Paging and the streamed LIST must each
 * see the same number of objects, at least as many as were seeded.
 */
export async function measureScaleReads(server: CairnProcess, options: ScaleReadOptions, log: (line: string) => void): Promise<ScaleReads> {
  const { shape } = options;
  const access = server.access;
  const rssAfterStart = mib(server.residentBytes());
  log(`ready in ${server.timeToReadyMs.toFixed(0)} ms, RSS ${rssAfterStart.toFixed(0)} MiB`);
  const latencies = options.parts === 'throughput' ? {} : await measureLatencies(access, options, log);
  if (options.parts === 'first-pages') return { readyMs: server.timeToReadyMs, rssMiB: { afterStart: rssAfterStart }, latencies };
  const cpuBeforePaging = cpuSeconds(server.pid);
  const paged = await pageAll(access, 500);
  if (paged.objects < shape.count) throw new Error(`paging listed ${paged.objects} objects, ${shape.count} were seeded`);
  const pagingCpu = ((cpuSeconds(server.pid) - cpuBeforePaging) * 1e6) / paged.objects;
  const rssAfterPaging = mib(server.residentBytes());
  log(
    `paged ${paged.objects} by 500 in ${paged.seconds.toFixed(1)} s: ${rate(paged)}/s, server CPU ${pagingCpu.toFixed(0)} ms per 1,000; RSS ${rssAfterPaging.toFixed(0)} MiB`,
  );
  server.resetPeak();
  const cpuBeforeStreamed = cpuSeconds(server.pid);
  const streamed = await listAll(access);
  if (streamed.objects !== paged.objects) throw new Error(`the unpaginated LIST held ${streamed.objects} objects, paging ${paged.objects}`);
  const streamedCpu = ((cpuSeconds(server.pid) - cpuBeforeStreamed) * 1e6) / streamed.objects;
  const rssAfterStreamed = mib(server.residentBytes());
  const peak = mib(server.peakResidentBytes());
  log(
    `streamed ${streamed.objects} (${(streamed.bytes / 2 ** 20).toFixed(0)} MiB) in ${streamed.seconds.toFixed(1)} s: ${rate(streamed)}/s, server CPU ${streamedCpu.toFixed(0)} ms per 1,000; RSS ${rssAfterStreamed.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB`,
  );
  return {
    readyMs: server.timeToReadyMs,
    rssMiB: { afterStart: rssAfterStart, afterPaging: rssAfterPaging, afterStreamed: rssAfterStreamed, peakStreamed: peak },
    latencies,
    paging: { ...paged, perSecond: rate(paged), cpuMsPer1000: pagingCpu },
    streamed: { ...streamed, perSecond: rate(streamed), cpuMsPer1000: streamedCpu },
  };
}
