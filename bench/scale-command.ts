/**
 * `npx tsx bench/scale-command.ts --data-dir DIR [--database-url URL] --count N [--namespaces 100] [--out FILE] [--throughput-only] [-- server flags]`:
 * starts Cairn (without the controller and the garbage collector, which are clients of
 * the API like any other and would read along) on a database bench/seed-command.ts
 * filled, measures the reads of bench/scale-reads.ts, and stops it. Server flags after
 * `--` are passed on (`-- --object-cache-size 0`). Progress and figures go to stderr,
 * the figures as JSON to `--out` when given.
 */
import { writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { CairnProcess } from './cairn-process.js';
import { measureScaleReads } from './scale-reads.js';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      'database-url': { type: 'string' },
      count: { type: 'string' },
      namespaces: { type: 'string', default: '100' },
      out: { type: 'string' },
      'throughput-only': { type: 'boolean', default: false },
    },
  });
  const count = Number(values.count);
  if (values['data-dir'] === undefined || !Number.isSafeInteger(count) || count < 1)
    throw new Error(
      'usage: scale-command.ts --data-dir DIR [--database-url URL] --count N [--namespaces 100] [--out FILE] [--throughput-only] [-- server flags]',
    );
  const dataDir = resolve(values['data-dir']);
  const server = await CairnProcess.start({
    dataDir,
    databaseUrl: values['database-url'],
    logFile: join(dataDir, 'scale-server.log'),
    extraArgs: ['--garbage-collector', 'off', '--log-level', 'warn', ...positionals],
  });
  try {
    const log = (line: string) => process.stderr.write(`${line}\n`);
    const reads = await measureScaleReads(
      server,
      { shape: { count, namespaces: Number(values.namespaces) }, parts: values['throughput-only'] ? 'throughput' : 'all' },
      log,
    );
    if (values.out !== undefined) await writeFile(values.out, `${JSON.stringify({ count, flags: positionals, ...reads }, null, 2)}\n`);
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
