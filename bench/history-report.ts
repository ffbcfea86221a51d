/**
 * The history section of `report.md` (issue 26): what the seeding wrote and what it
 * costs on disk, then each figure of the reads of the past beside its target.
 */
import type { HistoryResults, HistoryRun } from './history-bench.js';
import { figureRow } from './scale-report.js';

const backendNames = { postgres: 'PostgreSQL', pglite: 'PGlite' } as const;
const n = (v: number): string => Math.round(v).toLocaleString('en-US');
const gib = (bytes: number): string => `${(bytes / 2 ** 30).toFixed(2)} GiB`;

function runSection(backend: keyof typeof backendNames, run: HistoryRun): string[] {
  const { meta, seeding } = run;
  const lines = [
    `### ${backendNames[backend]}, ${n(meta.count)} Pipelines × ${meta.revisions} revisions`,
    '',
    `Commit \`${meta.commit}\`${meta.dirty ? ' (with uncommitted changes)' : ''}, measured ${meta.date} by \`npm run bench -- --history ${meta.count}${meta.profile === 'quick' ? ' --quick' : ''}\` ` +
      `on ${meta.cpus} × ${meta.cpuModel}, ${meta.memoryGiB} GiB, Node.js ${meta.node}${meta.postgres ? `, ${meta.postgres}` : ''}, ${Math.round(meta.durationSeconds)} s in all; ` +
      `1-minute load average ${meta.loadAverage.start} at the start, ${meta.loadAverage.end} at the end.`,
    '',
  ];
  if (seeding)
    lines.push(
      `Seeded ${n(seeding.events)} events (${n(seeding.objects)} ADDED and ${n(seeding.events - seeding.objects)} MODIFIED, each with its prior state) in ${seeding.seedSeconds.toFixed(0)} s; ` +
        `the event log takes ${gib(seeding.eventLogBytes)} on disk (${n(seeding.eventLogBytes / seeding.events)} bytes an event, indexes included), the database ${gib(seeding.databaseBytes)}.`,
      '',
    );
  lines.push('| item | figure | measured | target | ratio | met | note |', '| --- | --- | --- | --- | --- | --- | --- |', ...run.figures.map(figureRow), '');
  if (run.notes.length) lines.push(...run.notes.map((note) => `- ${note.replaceAll('|', '/')}`), '');
  return lines;
}

/** The section, or nothing before a history run. */
export function renderHistory(history: HistoryResults | undefined): string[] {
  if (!history || Object.keys(history).length === 0) return [];
  const lines = [
    '## History at scale (issue 26)',
    '',
    'Pipelines seeded with SQL (`npm run bench -- --history [N]`), each updated 9 times after its create, so the event log holds 10 revisions of each with their prior states; ' +
      'Cairn keeps them all (`--event-retention 7d`). A LIST at an exact resourceVersion reads the middle of the history (half the objects at their 6th revision, half at their 5th); ' +
      'a read the build does not answer as asked is noted below its table and left unmeasured. Item numbers are issue 26’s.',
    '',
  ];
  for (const backend of ['postgres', 'pglite'] as const) {
    const run = history[backend];
    if (run) lines.push(...runSection(backend, run));
  }
  return lines;
}
