/**
 * `npx tsx bench/watch-command.ts [--repo DIR]… [--rounds 3] [--scenario WATCHERSxRATExCREATES]…`:
 * watch delivery latency (issue 28 item 1) of one or more checkouts of Cairn, compared in
 * alternating rounds on one PostgreSQL, since a shared machine's load moves latency far
 * more than any change does. Each round starts every checkout in turn, a fresh server on
 * a fresh database, and runs every scenario on it with `measureWatchLatency`, as the
 * bench's watch rows do (by default theirs: 100 watchers × 100/s and 1,000 × 20/s).
 * Beside each run's p50 and p99 it prints the server's CPU per delivery, from /proc: the
 * cost of a delivery, which the machine's load changes far less than the latency.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { inAlternatingRounds, loadAverages } from './checkout-rounds.js';
import { cpuSeconds } from './process-cpu.js';
import { fullProfile } from './profile.js';
import { repoRoot } from './repo-root.js';
import { medianOf } from './stats.js';
import { measureWatchLatency, type WatchScenario } from './watch-latency.js';

/** One scenario's run on one checkout. */
interface Run {
  readonly repo: string;
  readonly scenario: string;
  readonly p50: number;
  readonly p99: number;
  /** The server's CPU per delivered event, in µs. */
  readonly cpuMicros: number;
  readonly load: string;
}

/** `100x100x200`: 100 watchers, creates at 100/s, 200 of them. */
function parseScenario(text: string): WatchScenario {
  const match = /^(\d+)x(\d+)x(\d+)$/.exec(text);
  if (!match) throw new Error(`--scenario: WATCHERSxRATExCREATES (as 100x100x200), not ${text}`);
  return { watchers: Number(match[1]), perSecond: Number(match[2]), writes: Number(match[3]) };
}

const name = (s: WatchScenario): string => `${s.watchers} watchers × ${s.perSecond}/s`;
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      repo: { type: 'string', multiple: true },
      rounds: { type: 'string', default: '3' },
      scenario: { type: 'string', multiple: true },
    },
  });
  const repos = (values.repo ?? [repoRoot]).map((r) => resolve(r));
  const scenarios = values.scenario?.map(parseScenario) ?? [fullProfile.watchSteady, fullProfile.watchMany];
  const rounds = Number(values.rounds);
  const runs: Run[] = [];
  await inAlternatingRounds(
    'watch',
    rounds,
    repos.map((repo) => ({ repo })),
    async (server, { repo }, { round, tag }) => {
      for (const [s, scenario] of scenarios.entries()) {
        const cpu = cpuSeconds(server.pid);
        const result = await measureWatchLatency({ writer: server.access, watched: server.access, namespace: `watch-${tag}-${s}`, scenario });
        const deliveries = result.latenciesMs.length;
        const run = {
          repo,
          scenario: name(scenario),
          p50: result.p50,
          p99: result.p99,
          cpuMicros: ((cpuSeconds(server.pid) - cpu) * 1e6) / deliveries,
          load: loadAverages(),
        };
        runs.push(run);
        const missing = result.missing > 0 ? `, ${result.missing} missing` : '';
        console.log(
          `${repo} round ${round + 1}, ${run.scenario}: p50 ${run.p50.toFixed(2)} ms, p99 ${run.p99.toFixed(2)} ms, ${run.cpuMicros.toFixed(1)} µs server CPU per delivery${missing} (load ${run.load})`,
        );
      }
    },
  );
  for (const repo of repos) {
    for (const scenario of scenarios) {
      const mine = runs.filter((r) => r.repo === repo && r.scenario === name(scenario));
      console.log(
        `${repo}, ${name(scenario)}: median p50 ${medianOf(mine.map((r) => r.p50)).toFixed(2)} ms, p99 ${medianOf(mine.map((r) => r.p99)).toFixed(2)} ms, ${medianOf(mine.map((r) => r.cpuMicros)).toFixed(1)} µs per delivery over ${mine.length} rounds`,
      );
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
