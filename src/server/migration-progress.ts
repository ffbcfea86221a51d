/**
 * The progress of `npm run storage-migrate` on stderr: a bar per resource on a
 * terminal, a plain line now and then and at the end otherwise (a log file, a CI job).
 */
import cliProgress from 'cli-progress';
import type { StorageMigrationProgress } from '../storage/storage-version-migration.js';

/** Shows one resource's migration; `stop()` prints its last state. */
export interface MigrationProgress {
  update(progress: StorageMigrationProgress): void;
  stop(): void;
}

/** The display of the migration of `resource` (`pipelines.cairn.dev`) on `stream`. */
export function migrationProgress(resource: string, stream: NodeJS.WriteStream = process.stderr): MigrationProgress {
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: stream.isTTY ? '{resource} [{bar}] {value}/{total} migrated' : '{resource}: {value}/{total} migrated',
      noTTYOutput: true,
      notTTYSchedule: 1000,
      hideCursor: true,
      // On a terminal the summary line takes the bar's place.
      clearOnComplete: true,
      gracefulExit: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update({ done, total }) {
      if (!started) bar.start(total, done, { resource });
      else bar.update(done);
      started = true;
    },
    stop: () => bar.stop(),
  };
}
