/**
 * `npx tsx bench/seed-command.ts --data-dir DIR [--database-url URL] --count N [--namespaces 100]`:
 * fills a Cairn database with N Pipelines for the scale measurements (bench/seed.ts).
 *
 * It starts Cairn on the database once to have the API write the template (a create and
 * a status update, so the stored object is what a controller-managed Pipeline looks
 * like, managedFields and all) and delete it again, writes the copies in SQL with the
 * server stopped, then starts Cairn again and reads samples back through the API: a few
 * objects by name, compared with their rows, and a selector's matches, counted.
 */
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { KubeObject } from '../src/machinery/meta/object.js';
import { CairnProcess, type CairnOptions } from './cairn-process.js';
import { seedPipelines, type SeedShape } from './seed.js';
import { checkSamples, openSeedDatabase, readSampleRows, writeSeedTemplate, type SampleRows } from './seed-samples.js';

function options(): { location: CairnOptions; shape: SeedShape; batch: number } {
  const { values } = parseArgs({
    options: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      count: { type: 'string' },
      namespaces: { type: 'string', default: '100' },
      batch: { type: 'string', default: '2000' },
    },
  });
  const dataDir = values['data-dir'];
  const count = Number(values.count);
  const namespaces = Number(values.namespaces);
  if (dataDir === undefined || !Number.isSafeInteger(count) || count < 1 || !Number.isSafeInteger(namespaces) || namespaces < 1)
    throw new Error('usage: seed-command.ts --data-dir DIR [--database-url URL] --count N [--namespaces 100] [--batch 2000]');
  const dir = resolve(dataDir);
  return {
    location: { dataDir: dir, databaseUrl: values['database-url'], logFile: join(dir, 'seed-server.log'), extraArgs: ['--garbage-collector', 'off'] },
    shape: { count, namespaces },
    batch: Number(values.batch),
  };
}

/** Reads samples back through the API on a server started for it. */
async function checkSeeded(location: CairnOptions, shape: SeedShape, template: KubeObject, rows: SampleRows): Promise<void> {
  const server = await CairnProcess.start(location);
  try {
    process.stderr.write(`${await checkSamples(server.access, shape, template, rows)}\n`);
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const { location, shape, batch } = options();
  await mkdir(location.dataDir, { recursive: true });
  process.stderr.write('writing the template through the API\n');
  const template = await writeSeedTemplate(location);
  const database = await openSeedDatabase(location);
  const started = performance.now();
  let seeded;
  let rows;
  try {
    seeded = await seedPipelines(database, {
      ...shape,
      template,
      batch,
      onProgress: (written) => {
        if (written % (batch * 25) === 0 || written === shape.count)
          process.stderr.write(`${written} / ${shape.count} (${Math.round(written / ((performance.now() - started) / 1000))}/s)\n`);
      },
    });
    rows = await readSampleRows(database, shape);
  } finally {
    await database.close();
  }
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(`seeded ${shape.count} Pipelines in ${seconds.toFixed(1)} s, resourceVersions ${seeded.first}–${seeded.last}\n`);
  await checkSeeded(location, shape, template, rows);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
