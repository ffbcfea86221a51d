/**
 * The `cairn` command: `start` (default) serves the API — as one process, or as the
 * primary of `--workers` processes on PostgreSQL; `migrate` brings the database schema
 * up to date and exits.
 */
import { pino, type Logger } from 'pino';
import { migrateToLatest } from '../storage/migrate.js';
import { parseConfig, type ServerConfig } from './config.js';
import { usableCores } from './cpu-limit.js';
import { openDatabase } from './open-database.js';
import { startServer, type RunningServer } from './server.js';
import { startBanner } from './start-banner.js';
import { announceReady, isFirstWorker, isWorker } from './worker-messages.js';
import { runPrimary } from './workers.js';

/** How many processes serve: `--workers`, else the usable cores; one on PGlite, whose data directory one process holds. */
function workerCount(config: ServerConfig, logger: Logger): number {
  const wanted = config.workers ?? usableCores();
  if (wanted > 1 && config.databaseUrl === undefined) {
    const message = 'embedded PGlite is served by one process: running one worker; set DATABASE_URL (or --database-url) for more';
    if (config.workers !== undefined) logger.warn({ workers: wanted }, message);
    else logger.info({ cores: wanted }, message);
    return 1;
  }
  return wanted;
}

/** Serves as one process (or one worker of a primary) until SIGTERM or SIGINT. */
async function serve(config: ServerConfig, logger: Logger): Promise<void> {
  let server: RunningServer | undefined = undefined;
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // Not serving yet (a worker joining its siblings readies its storage before it listens): nothing to drain.
    if (server === undefined) process.exit(0);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  server = await startServer(config, logger);
  const { url, kubeconfigPath } = server;
  server.ready
    .then((storage) => {
      // The primary prints the one banner once every worker serves.
      if (isWorker()) announceReady({ url, kubeconfigPath, storage });
      // For the person at the terminal, beside the JSON log on stdout.
      else process.stderr.write(startBanner(url, kubeconfigPath, storage));
    })
    .catch(() => undefined);
}

async function main(): Promise<void> {
  let config;
  try {
    config = parseConfig(process.argv.slice(2), process.env);
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  const logger = pino({ level: config.logLevel });
  if (config.command === 'migrate') {
    const database = await openDatabase(config, logger);
    const applied = await migrateToLatest(database);
    logger.info({ migrations: applied }, applied.length ? 'migrated' : 'up to date');
    await database.close();
    return;
  }
  // The sample controller has no leader election: one worker runs it, as one replica should.
  if (isWorker()) return serve(isFirstWorker() ? config : { ...config, controller: false }, logger);
  const workers = workerCount(config, logger);
  if (workers === 1) return serve(config, logger);
  process.exit(await runPrimary(config, logger, workers));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
