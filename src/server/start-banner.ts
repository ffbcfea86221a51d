/**
 * What `npm start` tells the person who ran it once the API serves: where it listens,
 * the kubeconfig to use, one command to try, and how durable its storage is — the
 * embedded mode's fsync=off next to the way to PostgreSQL.
 */
import type { WakeupSource } from '../storage/postgres-database.js';

/** The storage a server runs on. */
export interface StorageDescription {
  readonly backend: 'pglite' | 'postgres';
  /** The data directory of PGlite, or the PostgreSQL URL without its password. */
  readonly location: string;
  readonly fsync: boolean;
  /** On PostgreSQL, how other replicas' writes reach this one's watches. */
  readonly wakeups?: WakeupSource;
}

/** The lines `npm start` prints once ready; `workers`: how many processes serve (`--workers`). */
export function startBanner(url: string, kubeconfigPath: string, storage: StorageDescription, workers = 1): string {
  const lines = [
    `Cairn serves cairn.dev at ${url}${workers > 1 ? ` with ${workers} workers` : ''}`,
    `  kubeconfig: ${kubeconfigPath}`,
    `  try:        kubectl --kubeconfig ${kubeconfigPath} get pipelines,runnerclasses -A`,
    storage.backend === 'pglite' ? `  storage:    embedded PGlite in ${storage.location}` : `  storage:    PostgreSQL at ${storage.location}`,
  ];
  if (storage.wakeups)
    lines.push(
      'listen' in storage.wakeups
        ? `  wake-ups:   LISTEN on ${storage.wakeups.listen}`
        : `  wake-ups:   polling the event log every ${storage.wakeups.pollIntervalMs} ms (through a transaction pooler; --database-listen-url gives LISTEN)`,
    );
  if (!storage.fsync) {
    const what = storage.backend === 'pglite' ? 'embedded PGlite runs with fsync=off' : 'this PostgreSQL runs with fsync=off';
    lines.push(`  WARNING:    ${what}: a crash of the machine can lose writes it acknowledged.`);
    if (storage.backend === 'pglite') lines.push('              For anything that matters, run on PostgreSQL: set DATABASE_URL (or --database-url).');
  }
  // A blank line ends it, apart from the log that follows.
  return `${lines.join('\n')}\n\n`;
}

/** `url` without its password, for printing. */
export function redactedDatabaseUrl(url: string): string {
  // Not URL: libpq's URIs list several hosts, and the keyword/value form is no URL at all.
  return url
    .replace(/^(postgres(?:ql)?:\/\/[^@/?]*?:)[^@/?]*@/, '$1***@')
    .replace(/([?&]password=)[^&]*/g, '$1***')
    .replace(/(^|\s)password\s*=\s*('(?:[^'\\]|\\.)*'|\S*)/g, '$1password=***');
}
