/**
 * What `npm start` tells the person who ran it once the API serves: where it listens,
 * the kubeconfig to use, one command to try, and how durable its storage is — the
 * embedded mode's fsync=off next to the way to PostgreSQL.
 */

/** The storage a server runs on. */
export interface StorageDescription {
  readonly backend: 'pglite' | 'postgres';
  /** The data directory of PGlite, or the PostgreSQL URL without its password. */
  readonly location: string;
  readonly fsync: boolean;
}

/** The lines `npm start` prints once ready; `workers`: how many processes serve (`--workers`). */
export function startBanner(url: string, kubeconfigPath: string, storage: StorageDescription, workers = 1): string {
  const lines = [
    `Cairn serves cairn.dev at ${url}${workers > 1 ? ` with ${workers} workers` : ''}`,
    `  kubeconfig: ${kubeconfigPath}`,
    `  try:        kubectl --kubeconfig ${kubeconfigPath} get pipelines,runnerclasses -A`,
    storage.backend === 'pglite' ? `  storage:    embedded PGlite in ${storage.location}` : `  storage:    PostgreSQL at ${storage.location}`,
  ];
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
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(unparsable URL)';
  }
}
