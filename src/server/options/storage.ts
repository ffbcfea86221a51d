/**
 * Storage's flags (where the database is, how long the event log keeps history, the
 * caches' sizes, the logs' limits) and what they apply to a server: the post-start
 * hooks that open, migrate and bootstrap storage (retrying until the database answers)
 * and then compact the event log and expire old log lines on a timer, the readiness
 * checks that follow them, and storage's part of shutdown.
 */
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { servedGroups } from '../../apis/served-groups.js';
import type { HealthCheck } from '../../http/health.js';
import { Registry } from '../../registry/registry.js';
import type { Database } from '../../storage/database.js';
import { tracedDatabase } from '../../storage/traced-database.js';
import { fsyncEnabled } from '../../storage/durability.js';
import { ConnectionStringError, parseConnectionString } from '../../storage/connection-string.js';
import { migrateToLatest } from '../../storage/migrate.js';
import { PostgresDatabase } from '../../storage/postgres-database.js';
import type { StorageMetrics } from '../../storage/metrics.js';
import { defaultObjectCacheSize, SqlObjectStore } from '../../storage/sql-object-store.js';
import { refreshStatistics } from '../../storage/table-statistics.js';
import type { Lifecycle } from '../lifecycle.js';
import { openDatabase, pgliteDirectory } from '../open-database.js';
import { redactedDatabaseUrl, type StorageDescription } from '../start-banner.js';
import { byteSize, count, FlagError, retention, seconds, stringFlag, stringSlice, type ConcernOptions, type FlagValues } from './flags.js';

/** Where the database is. */
export interface DatabaseLocation {
  readonly dataDir: string;
  /** A PostgreSQL connection string (libpq's URI or keyword/value form); PGlite under the data directory when unset. */
  readonly databaseUrl?: string;
  /** `--database-listen-url`: a direct connection string for what needs a session of its own (LISTEN, the collector's lock). */
  readonly databaseListenUrl?: string;
  /** `--database-pooler=transaction`: `--database-url` goes through a transaction-mode pooler (PgBouncer). */
  readonly databasePooler?: 'transaction';
}

/** What the storage flags say. */
export interface StorageOptions extends DatabaseLocation {
  /** How long the event log keeps history, in ms (kube's default etcd compaction window is 5 min; ours is 15). */
  readonly eventRetentionMs: number;
  /**
   * `--event-retention-overrides`: resources (`pipelines.cairn.dev`) whose history is
   * kept longer than `eventRetentionMs`, in ms; watches still start within `eventRetentionMs`.
   */
  readonly eventRetentionOverridesMs: ReadonlyMap<string, number>;
  readonly compactionIntervalMs: number;
  /**
   * `--object-cache-size`: the most objects of one resource kept in memory to serve
   * reads (a resource with more is read from the database, by index); 0 turns the
   * object cache off.
   */
  readonly objectCacheSize: number;
  /** `--watch-cache-size`: the most events the watch cache keeps (kube's watch cache sizes, for every resource at once). */
  readonly watchCacheSize: number;
  /** `--watch-cache-max-age`: how long the watch cache keeps an event at most, in ms; older history is read from the event log. */
  readonly watchCacheMaxAgeMs: number;
  /**
   * `--log-max-bytes-per-pipeline`: the most bytes one object's log keeps (kubelet's
   * `containerLogMaxSize`, 10 MiB by default); the append that exceeds it removes the
   * oldest lines. 0: no cap.
   */
  readonly logMaxBytes: number;
  /** `--log-max-age`: how long a log line is kept at most, in ms, removed by the compaction pass; 0 (the default): as long as its object. */
  readonly logMaxAgeMs: number;
}

/** Storage as the rest of the server sees it while it comes up. */
export interface StorageConfig {
  /** The registry once storage is ready; undefined before (data requests are answered 503). */
  readonly registry: () => Registry | undefined;
  /** What storage is, once the storage-ready hook has run. */
  readonly description: () => StorageDescription;
}

/**
 * The database every command of the process uses, from `--data-dir`/`DATA_DIR`,
 * `--database-url`/`DATABASE_URL`, `--database-listen-url`/`DATABASE_LISTEN_URL` and
 * `--database-pooler`/`DATABASE_POOLER`.
 */
export function databaseLocation(flags: FlagValues, env: NodeJS.ProcessEnv): DatabaseLocation {
  const databaseUrl = stringFlag(flags, 'database-url') ?? (env.DATABASE_URL || undefined);
  const databaseListenUrl = stringFlag(flags, 'database-listen-url') ?? (env.DATABASE_LISTEN_URL || undefined);
  const pooler = stringFlag(flags, 'database-pooler') ?? (env.DATABASE_POOLER || 'none');
  if (pooler !== 'none' && pooler !== 'transaction') throw new FlagError(`--database-pooler must be none or transaction, got "${pooler}"`);
  if ((databaseListenUrl !== undefined || pooler !== 'none') && databaseUrl === undefined)
    throw new FlagError('--database-listen-url and --database-pooler need --database-url (PostgreSQL)');
  checkConnectionString('--database-url', databaseUrl);
  checkConnectionString('--database-listen-url', databaseListenUrl);
  return {
    dataDir: resolve(stringFlag(flags, 'data-dir') ?? env.DATA_DIR ?? '.data'),
    databaseUrl,
    ...(databaseListenUrl !== undefined ? { databaseListenUrl } : {}),
    ...(pooler === 'transaction' ? { databasePooler: pooler } : {}),
  };
}

/** A connection string libpq would refuse is a usage error at start, not a database that never answers. */
function checkConnectionString(flag: string, text: string | undefined): void {
  if (text === undefined) return;
  try {
    parseConnectionString(text);
  } catch (error) {
    if (error instanceof ConnectionStringError) throw new FlagError(`${flag}: ${error.message}`);
    throw error;
  }
}

/**
 * `--event-retention-overrides` in the form of kube's `--watch-cache-sizes`
 * (`resource.group#value`, comma-separated): a served resource and a retention no
 * shorter than `--event-retention`, since watches start after the log's one mark.
 */
function retentionOverrides(items: readonly string[], eventRetentionMs: number): ReadonlyMap<string, number> {
  const served = servedGroups.flatMap((group) => group.resources.map((resource) => `${resource.plural}.${resource.group}`));
  const overrides = new Map<string, number>();
  for (const item of items) {
    const [resource, duration, ...rest] = item.split('#');
    if (duration === undefined || rest.length > 0)
      throw new FlagError(`invalid value of --event-retention-overrides: ${item}, expected resource.group#duration`);
    if (!served.includes(resource)) throw new FlagError(`--event-retention-overrides: unknown resource "${resource}", choose one of: ${served.join(', ')}`);
    const ms = retention(`--event-retention-overrides ${resource}`, duration, 0);
    if (ms < eventRetentionMs)
      throw new FlagError(`--event-retention-overrides: ${resource}#${duration} is shorter than --event-retention, which every resource keeps`);
    overrides.set(resource, ms);
  }
  return overrides;
}

/** kubelet's default `containerLogMaxSize`. */
const defaultLogMaxBytes = 10 * 1024 * 1024;

const databaseRetryMs = 1000;
const pingCacheMs = 1000;

/** kube's `etcd` check for the database: pings it at most once a second; readyz and data requests share the answer. */
function databaseCheck(database: () => Database | undefined): HealthCheck {
  let last = 0;
  let failure: Promise<string | undefined> = Promise.resolve('the database is not open yet');
  return {
    name: 'database',
    check: () => {
      const db = database();
      if (!db) return 'the database is not open yet';
      if (Date.now() - last > pingCacheMs) {
        last = Date.now();
        // The driver's error may name hosts and users: the reason says only that the ping failed.
        failure = db.ping().then(
          () => undefined,
          () => 'the database did not answer a ping',
        );
      }
      return failure;
    },
  };
}

/** What applying the storage options needs of the server. */
interface StorageContext {
  readonly options: StorageOptions;
  readonly logger: Logger;
  readonly lifecycle: Lifecycle;
  /** Storage's metrics, which the store records into and which read it when scraped. */
  readonly metrics: StorageMetrics;
}

export const storageOptions = {
  flags: {
    'data-dir': { type: 'string', usage: '[--data-dir DIR]' },
    'database-url': { type: 'string', usage: '[--database-url URL]' },
    'database-listen-url': { type: 'string', usage: '[--database-listen-url URL]' },
    'database-pooler': { type: 'string', usage: '[--database-pooler none|transaction]' },
    'event-retention': { type: 'string', usage: '[--event-retention SECONDS|DURATION]' },
    'event-retention-overrides': { type: 'string', multiple: true, usage: '[--event-retention-overrides RESOURCE.GROUP#DURATION,...]' },
    'compaction-interval': { type: 'string', usage: '[--compaction-interval SECONDS]' },
    'object-cache-size': { type: 'string', usage: '[--object-cache-size N]' },
    'watch-cache-size': { type: 'string', usage: '[--watch-cache-size N]' },
    'watch-cache-max-age': { type: 'string', usage: '[--watch-cache-max-age SECONDS]' },
    'log-max-bytes-per-pipeline': { type: 'string', usage: '[--log-max-bytes-per-pipeline BYTES|10Mi]' },
    'log-max-age': { type: 'string', usage: '[--log-max-age SECONDS|DURATION]' },
  },
  environment: [
    'DATA_DIR',
    'DATABASE_URL',
    'DATABASE_LISTEN_URL',
    'DATABASE_POOLER',
    'EVENT_RETENTION_SECONDS',
    'EVENT_RETENTION_OVERRIDES',
    'COMPACTION_INTERVAL_SECONDS',
    'OBJECT_CACHE_SIZE',
    'WATCH_CACHE_SIZE',
    'WATCH_CACHE_MAX_AGE_SECONDS',
    'LOG_MAX_BYTES_PER_PIPELINE',
    'LOG_MAX_AGE',
  ],

  parse(values, env) {
    const flag = (name: string) => stringFlag(values, name);
    const eventRetentionMs = retention('event retention', flag('event-retention') ?? env.EVENT_RETENTION_SECONDS, 15 * 60);
    const overrides =
      values['event-retention-overrides'] === undefined && env.EVENT_RETENTION_OVERRIDES
        ? { 'event-retention-overrides': [env.EVENT_RETENTION_OVERRIDES] }
        : values;
    return {
      ...databaseLocation(values, env),
      eventRetentionMs,
      eventRetentionOverridesMs: retentionOverrides(stringSlice('event-retention-overrides', overrides, []), eventRetentionMs),
      compactionIntervalMs: seconds('compaction interval', flag('compaction-interval') ?? env.COMPACTION_INTERVAL_SECONDS, 60),
      objectCacheSize: count('object-cache-size', flag('object-cache-size') ?? (env.OBJECT_CACHE_SIZE || undefined), defaultObjectCacheSize),
      watchCacheSize: count('watch-cache-size', flag('watch-cache-size') ?? (env.WATCH_CACHE_SIZE || undefined), 10_000),
      watchCacheMaxAgeMs: seconds('watch cache max age', flag('watch-cache-max-age') ?? env.WATCH_CACHE_MAX_AGE_SECONDS, 5 * 60),
      logMaxBytes: byteSize('log-max-bytes-per-pipeline', flag('log-max-bytes-per-pipeline') ?? env.LOG_MAX_BYTES_PER_PIPELINE, defaultLogMaxBytes),
      logMaxAgeMs: retention('log max age', flag('log-max-age') ?? env.LOG_MAX_AGE, 0),
    };
  },

  /**
   * Adds the `storage-ready` hook (the listener answers discovery and health at once; the
   * API serves once it has run), the `start-compaction` hook after it, and the `database`
   * readiness check.
   */
  applyTo({ options, logger, lifecycle, metrics }: StorageContext): StorageConfig {
    let database: Database | undefined;
    let store: SqlObjectStore | undefined;
    let registry: Registry | undefined;
    let description: StorageDescription | undefined;

    lifecycle.addReadyzChecks(databaseCheck(() => database));
    lifecycle.addPostStartHook('storage-ready', async () => {
      for (;;) {
        try {
          database ??= tracedDatabase(await openDatabase(options, logger));
          const applied = await migrateToLatest(database);
          if (applied.length) logger.info({ migrations: applied }, 'migrated');
          // Before the first read: without them, PGlite's planner would scan (table-statistics.ts).
          if (await refreshStatistics(database)) logger.info('planner statistics gathered');
          store = await SqlObjectStore.open(database, {
            onBackgroundError: (error) => logger.warn({ err: error }, 'event log'),
            // An embedded PGlite belongs to this process alone (its data directory is locked).
            exclusiveWriter: database.backend === 'pglite',
            objectCacheSize: options.objectCacheSize,
            watchCacheCapacity: options.watchCacheSize,
            // 0: no age limit, as kube's durations that turn a limit off.
            watchCacheMaxAgeMs: options.watchCacheMaxAgeMs || undefined,
            logMaxBytes: options.logMaxBytes,
            metrics,
          });
          metrics.observe({ store, database });
          const opened = new Registry(servedGroups, store);
          // As kube-apiserver's post-start hooks: the default objects exist before the API is served.
          await opened.bootstrap();
          registry = opened;
          description = {
            backend: database.backend,
            location: options.databaseUrl ? redactedDatabaseUrl(options.databaseUrl) : pgliteDirectory(options.dataDir),
            fsync: await fsyncEnabled(database),
            ...(database instanceof PostgresDatabase ? { wakeups: database.wakeups } : {}),
          };
          break;
        } catch (error) {
          if (lifecycle.shuttingDown.aborted) throw error;
          logger.warn({ err: error }, 'storage not ready; retrying');
          metrics.observe(undefined);
          await store?.close().catch(() => undefined);
          store = undefined;
          await new Promise((resolve) => setTimeout(resolve, databaseRetryMs));
        }
      }
      if (!description.fsync)
        logger.warn(
          { backend: description.backend, fsync: 'off' },
          'the database does not flush commits to disk: a machine crash can lose acknowledged writes',
        );
      logger.info('ready');
    });

    lifecycle.addPostStartHook('start-compaction', async () => {
      const compaction = setInterval(() => {
        const started = performance.now();
        const took = () => (performance.now() - started) / 1000;
        store?.compact(options.eventRetentionMs, options.eventRetentionOverridesMs).then(
          ({ ran }) => metrics.compactionRun(ran ? 'success' : 'skipped', took()),
          (error: unknown) => {
            metrics.compactionRun('failure', took());
            logger.warn({ err: error }, 'compaction failed');
          },
        );
        if (options.logMaxAgeMs > 0)
          store?.expireLogLines(options.logMaxAgeMs).catch((error: unknown) => logger.warn({ err: error }, 'removing expired log lines failed'));
        // On PGlite, as autovacuum would (elsewhere a no-op); on compaction's cadence, as the log's size changes with it too.
        if (database) refreshStatistics(database).catch((error: unknown) => logger.warn({ err: error }, 'gathering planner statistics failed'));
      }, options.compactionIntervalMs);
      compaction.unref();
      return () => clearInterval(compaction);
    });

    lifecycle.addPreShutdownHook('storage', async () => {
      metrics.observe(undefined);
      await store?.close();
    });
    lifecycle.addDestroyFunc('database', async () => database?.close());

    return {
      registry: () => registry,
      description: () => {
        if (!description) throw new Error('storage is not ready');
        return description;
      },
    };
  },
} satisfies ConcernOptions<StorageOptions> & { applyTo(context: StorageContext): StorageConfig };
