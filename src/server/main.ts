/**
 * The `cairn` command: `start` (default) serves the API; `migrate` brings the
 * database schema up to date and exits.
 */
import { pino } from 'pino';
import { migrateToLatest } from '../storage/migrate.js';
import { parseConfig } from './config.js';
import { openDatabase } from './open-database.js';
import { startServer } from './server.js';
import { startBanner } from './start-banner.js';

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
  const server = await startServer(config, logger);
  // For the person at the terminal, beside the JSON log on stdout.
  server.ready.then((storage) => process.stderr.write(startBanner(server.url, server.kubeconfigPath, storage))).catch(() => undefined);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
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
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
