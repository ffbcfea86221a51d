/**
 * The LIST rows. Their objects are copies of one Pipeline created through the API,
 * made in SQL while the server is stopped (through the API, 110,000 creates would take
 * minutes); the LIST's limit, one query and JSON.stringify of the same rows, is
 * measured then too.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { runName, step, type BenchContext } from './bench-context.js';
import type { CairnProcess } from './cairn-process.js';
import { listAll, listPages } from './list-timing.js';
import { openObjectTable } from './object-table.js';
import { pipelineBody, pipelinesPath } from './pipeline-manifest.js';
import { mib } from './process-memory.js';
import type { Backend } from './rows.js';
import { expectStatus } from './server-access.js';

const templateNamespace = 'bench-template';
const templateName = 'template';
const listNamespace = 'bench-list';
const streamedNamespace = 'bench-streamed';

/** Creates, through the API, the Pipeline the LIST rows' objects are copied from. */
export async function createListTemplate(server: CairnProcess): Promise<void> {
  await expectStatus(server.access, 'POST', pipelinesPath(templateNamespace), { body: pipelineBody(templateName) });
}

/** With the server stopped: copies the template into the LIST rows' namespaces, then measures the LIST's limit. */
export async function seedAndMeasureLimit(ctx: BenchContext, backend: Backend, location: { dataDir: string; databaseUrl?: string }): Promise<void> {
  const { profile } = ctx;
  const table = await openObjectTable(location);
  try {
    ctx.progress.step(`${backend}: copying ${profile.listObjects + profile.streamedObjects} Pipelines in SQL`);
    await table.cloneObject(templateNamespace, templateName, listNamespace, 'p-', profile.listObjects);
    await table.cloneObject(templateNamespace, templateName, streamedNamespace, 's-', profile.streamedObjects);
    for (let run = 0; run < profile.runs; run++) {
      await step(ctx, backend, 'list', `query + JSON.stringify of ${profile.listObjects} rows${runName(ctx, run)}`, async () => {
        const { ms, count } = await table.queryAndStringify(listNamespace);
        if (count !== profile.listObjects) throw new Error(`the query read ${count} rows, not ${profile.listObjects}`);
        ctx.collector.add(backend, 'list', 'limit', ms);
      });
    }
  } finally {
    await table.close();
  }
}

/** Measures the LIST rows on `server`, started after the seeding. */
export async function listRows(ctx: BenchContext, backend: Backend, server: CairnProcess): Promise<void> {
  const { profile, collector } = ctx;
  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, backend, 'list', `LIST ${profile.listObjects}${runName(ctx, run)}`, async () => {
      collector.add(backend, 'list', 'cairn', (await listAll(server.access, listNamespace)).ms);
    });
  }
  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, backend, 'list-pages', `LIST ${profile.listObjects} in pages of ${profile.pageSize}${runName(ctx, run)}`, async () => {
      const result = await listPages(server.access, listNamespace, profile.pageSize);
      if (result.items !== profile.listObjects) throw new Error(`the pages held ${result.items} items, not ${profile.listObjects}`);
      collector.add(backend, 'list-pages', 'cairn', result.ms);
    });
  }
}

/**
 * Measures the streamed LIST's memory, each run on a server `start` starts afresh: the
 * growth is from a server's resting RSS, not from a heap an earlier run already grew.
 */
export async function streamedListRow(ctx: BenchContext, backend: Backend, start: () => Promise<CairnProcess>): Promise<void> {
  const { profile, collector } = ctx;
  for (let run = 0; run < profile.runs; run++) {
    await step(ctx, backend, 'list-streamed', `LIST ${profile.streamedObjects}, server memory${runName(ctx, run)}`, async () => {
      const server = await start();
      try {
        await sleep(1000);
        const before = server.residentBytes();
        if (!server.resetPeak()) throw new Error('cannot reset the peak RSS of the server (/proc/PID/clear_refs)');
        const result = await listAll(server.access, streamedNamespace);
        collector.add(backend, 'list-streamed', 'cairn', mib(server.peakResidentBytes() - before));
        collector.add(backend, 'list-streamed', 'limit', mib(result.bytes));
        collector.add(backend, 'list-streamed', 'secondary', result.ms);
      } finally {
        await server.stop();
      }
    });
  }
}
